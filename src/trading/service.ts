// The research side of the platform: load bars → run the pure engine in the mill → store the run, clock injected.
import { z } from 'zod'
import type { Clock } from '../clock.js'
import type { Mill } from '../mill/pool.js'
import { budgetOf } from '../mill/pool.js'
import type { Admission } from '../plugins/admission.js'
import { Refusal, issuesFromZod } from '../refusal.js'
import type { Store } from '../store/index.js'
import type { BacktestPayload, GridPayload, SimulatePayload, WalkForwardPayload } from '../mill/tasks/trading.js'
import type { In, Out, TaskName } from '../mill/tasks/index.js'
import { parseStrategyParams, STRATEGIES, STRATEGY_NAMES } from '../engines/trading/index.js'
import { enumerateConfigs } from '../engines/trading/walk-forward.js'
import type { BacktestOptions, Bars, StrategyName } from '../engines/trading/types.js'
import { digestOf } from './checksum.js'
import { resolveDataset } from './datasets.js'
import { downsample, finite, iso, statsView, tradeView } from './present.js'
import { createTradingRepository, type DatasetRow, type RunKind, type TradingRepository } from './repository.js'
import { PLATFORM_VERSION, type BacktestBody, type SimulateBody } from './schemas.js'

/** Equity points kept with a stored backtest (for the command center's chart). */
export const STORED_EQUITY_POINTS = 600
/** Walk-forward and grid searches: configurations per request, and configurations × bars (each config runs once). */
export const MAX_CONFIGS = 2000
export const MAX_CONFIG_BARS = 150_000_000
export const MAX_V10_PAIRS = 2500
export const SIMULATE_MAX_BAR_STEPS = 20_000_000
/** Bars kept in memory across datasets (48 bytes each). */
export const BARS_CACHE_LIMIT = 1_500_000

export interface ServiceDeps {
  store: Store
  mill: Mill
  admission: Admission
  clock: Clock
  /** Stored runs kept (count, age in days; 0 = no limit of that kind); default: no limit. */
  runRetention?: { maxRuns: number; maxAgeDays: number }
}

export interface StoredRunRef {
  id: number
  inputs_digest: string
  same_inputs_as_run: number | null
  created_at: string
  elapsed_ms: number
  /** false: an identical run was stored before, and id and created_at are that run's. */
  stored: boolean
}

export type TradingService = ReturnType<typeof createTradingService>

export function createTradingService(deps: ServiceDeps) {
  const { store, mill, admission, clock } = deps
  const retention = deps.runRetention ?? { maxRuns: 0, maxAgeDays: 0 }
  const repo = createTradingRepository(store.db)
  const cache = createBarsCache(repo, BARS_CACHE_LIMIT)

  /** Heavy work: refused first while the host sheds load, then run in the mill under the caller's budget. */
  async function heavy<K extends TaskName>(op: string, task: K, payload: In<K>, timeoutMs: number | undefined): Promise<{ result: Out<K>; elapsedMs: number }> {
    admission.admitHeavy(op)
    const started = performance.now()
    try {
      const result = await mill.run(task, payload, { timeoutMs: budgetOf(timeoutMs), op })
      return { result, elapsedMs: performance.now() - started }
    } catch (err) {
      // The engine refuses impossible requests with RangeError (window longer than the data, empty grid…).
      if (err instanceof Error && err.name === 'RangeError') throw new Refusal('invalid_input', err.message, { op })
      throw err
    }
  }

  function storeRun(kind: RunKind, dataset: DatasetRow, fields: {
    strategy: string | null
    params: unknown
    request: unknown
    /** Everything besides the dataset that determines the answer (the run's inputs digest covers it). */
    inputs: Record<string, unknown>
    stats: unknown
    equity: Array<[number, number]> | null
    elapsedMs: number
  }): StoredRunRef {
    const digest = digestOf({ kind, engine: PLATFORM_VERSION, dataset: { id: dataset.id, sha256: dataset.sha256 }, ...fields.inputs })
    const equity = fields.equity ? JSON.stringify(fields.equity) : null
    const elapsedMs = round(fields.elapsedMs, 3)
    return store.transaction(() => {
      // Identical inputs give an identical answer: store it once (a repeat only adds a curve the first lacked).
      const first = repo.firstRunWithDigest(digest)
      if (first) {
        if (equity && !first.has_equity) repo.setMissingRunEquity(first.id, equity)
        return { id: first.id, inputs_digest: digest, same_inputs_as_run: first.id, created_at: first.created_at, elapsed_ms: elapsedMs, stored: false }
      }
      const now = clock.now()
      const createdAt = iso(now)
      const id = repo.insertRun({
        kind,
        dataset_id: dataset.id,
        strategy: fields.strategy,
        params: JSON.stringify(fields.params),
        request: JSON.stringify(fields.request),
        inputs_digest: digest,
        stats: JSON.stringify(fields.stats),
        equity,
        elapsed_ms: fields.elapsedMs,
        created_at: createdAt,
      })
      repo.pruneRuns(id, retention, now)
      return { id, inputs_digest: digest, same_inputs_as_run: null, created_at: createdAt, elapsed_ms: elapsedMs, stored: true }
    })
  }

  return {
    repo,

    dataset: (ref: number | string): DatasetRow => resolveDataset(repo, ref),
    strategyParams: strategyParamsOf,
    /** A dataset's bars (immutable once stored, so served from a bounded cache). */
    bars: (dataset: DatasetRow): Bars => cache.get(dataset, null),

    /** `persist: false` recomputes without storing a run (a stored run's trades are read back this way). */
    async backtest(body: BacktestBody, { persist = true }: { persist?: boolean } = {}) {
      const dataset = resolveDataset(repo, body.dataset)
      const params = strategyParamsOf(body.strategy, body.params)
      const range = rangeOf(body.from, body.to)
      const bars = cache.get(dataset, range)
      needBars(bars, 2, dataset, range)
      const options = optionsOf(body)
      const payload: BacktestPayload = { bars, strategy: body.strategy, params, options }
      const { result, elapsedMs } = await heavy('trading.backtest', 'trading.backtest', payload, body.timeout_ms)
      const stats = statsView(result.stats)
      const settings = settingsOf(body)
      const run = !persist ? null : storeRun('backtest', dataset, {
        strategy: body.strategy,
        params,
        request: { ...body, params },
        inputs: { strategy: body.strategy, params, settings, from: bars.ts[0], to: bars.ts[bars.ts.length - 1] },
        stats,
        // The curve is most of a run's bytes: kept only when the caller asks for it.
        equity: body.include.includes('equity') ? downsample(bars.ts, result.equity, STORED_EQUITY_POINTS) : null,
        elapsedMs,
      })
      const answer: Record<string, unknown> = {
        run,
        dataset: { ...briefOf(dataset), bars: bars.ts.length, from: iso(bars.ts[0]!), to: iso(bars.ts[bars.ts.length - 1]!) },
        strategy: body.strategy,
        params,
        settings,
        stats,
      }
      if (body.include.includes('trades')) answer.trades = result.trades.map(tradeView)
      if (body.include.includes('equity')) {
        const maxPoints = body.equity_points ?? bars.ts.length
        const points = downsample(bars.ts, result.equity, maxPoints)
        answer.equity = { points, total_points: bars.ts.length, downsampled: points.length < bars.ts.length }
      }
      return answer
    },

    async simulate(body: SimulateBody) {
      const dataset = resolveDataset(repo, body.dataset)
      const params = strategyParamsOf(body.strategy, body.params)
      const bars = cache.get(dataset, null)
      needBars(bars, 3, dataset, null)
      // Each path runs the strategy over a tail of history plus the horizon; the history is at most a few hundred bars.
      const steps = body.paths * (body.horizon + Math.min(bars.ts.length, 1000))
      if (steps > SIMULATE_MAX_BAR_STEPS) {
        throw new Refusal('over_limit', `paths × (horizon + history) is about ${steps} bar steps, over the limit of ${SIMULATE_MAX_BAR_STEPS}; lower paths or horizon`, {
          hints: { limit: { name: 'simulate_bar_steps', value: SIMULATE_MAX_BAR_STEPS, requested: steps } },
        })
      }
      const options = optionsOf(body)
      const spec = { paths: body.paths, horizon: body.horizon, method: body.method, seed: body.seed, ...(body.block ? { block: body.block } : {}) }
      const payload: SimulatePayload = { bars, strategy: body.strategy, params, options, spec }
      const { result, elapsedMs } = await heavy('trading.simulate', 'trading.simulate', payload, body.timeout_ms)
      const mc = finite(result)
      const summary = {
        return_p50_pct: mc.return_pct.p50, probability_of_loss: mc.probability_of_loss, var95_pct: mc.var95_pct,
        cvar95_pct: mc.cvar95_pct, max_drawdown_p50_pct: mc.max_drawdown_pct.p50, sharpe_p50: mc.sharpe.p50, paths: mc.paths,
      }
      const run = storeRun('simulate', dataset, {
        strategy: body.strategy,
        params,
        request: { ...body, params },
        inputs: { strategy: body.strategy, params, settings: settingsOf(body), spec },
        stats: summary,
        equity: null,
        elapsedMs,
      })
      return {
        run,
        dataset: { ...briefOf(dataset), bars: bars.ts.length },
        strategy: body.strategy,
        params,
        paths_requested: body.paths,
        ...mc,
      }
    },

    async maxEdgeSignal(body: MaxEdgeBody, as: { kind: 'max_edge' | 'full_cycle_search'; recordSignal: boolean } = { kind: 'max_edge', recordSignal: true }) {
      const dataset = resolveDataset(repo, body.dataset)
      const bars = cache.get(dataset, null)
      const n = bars.ts.length
      const inSample = body.in_sample ?? Math.min(2520, Math.max(50, Math.round(n / 5)))
      const outOfSample = body.out_of_sample ?? Math.max(10, Math.round(inSample / 4))
      if (inSample + outOfSample > n) {
        throw new Refusal('invalid_input', `in_sample + out_of_sample = ${inSample + outOfSample} bars, but dataset #${dataset.id} has ${n}`, {
          issues: [{ path: 'in_sample', message: `in_sample + out_of_sample must be at most ${n}` }],
        })
      }
      const strategies = body.strategies ?? STRATEGY_NAMES
      const grid = gridOf(body.grid, strategies)
      const configs = enumerateConfigs(strategies, grid)
      const maxConfigs = Math.min(body.max_configs ?? MAX_CONFIGS, MAX_CONFIGS)
      if (configs.length === 0) throw new Refusal('invalid_input', 'the grid has no valid configuration (check parameter ranges, e.g. fast < slow)')
      checkGridSize(configs.length, maxConfigs, n)
      const options = optionsOf(body)
      const payload: WalkForwardPayload = {
        bars,
        spec: { strategies, grid, inSample, outOfSample, ...(body.step ? { step: body.step } : {}), options, maxConfigs },
      }
      const { result, elapsedMs } = await heavy('trading.max-edge-signal', 'trading.walkForward', payload, body.timeout_ms)
      const wf = finite(result)
      const oosStats = wf.oos_stats ? statsView(result.oos_stats!) : null
      const lastTs = bars.ts[n - 1]!
      const runRef = storeRun(as.kind, dataset, {
        strategy: wf.best?.strategy ?? null,
        params: wf.best?.params ?? {},
        request: body,
        inputs: { strategies, grid, inSample, outOfSample, step: body.step ?? null, settings: settingsOf(body), maxConfigs },
        stats: { best: wf.best, configs_tried: wf.configs_tried, deflated_sharpe: wf.deflated_sharpe, oos_stats: oosStats, signal: wf.signal },
        equity: null,
        elapsedMs,
      })
      const signalId = as.recordSignal && wf.best && wf.signal
        ? repo.insertSignal({
          dataset_id: dataset.id, strategy: wf.best.strategy, params: JSON.stringify(wf.best.params), signal: wf.signal,
          bar_ts: lastTs, origin: 'max-edge-signal', run_id: runRef.id, created_at: iso(clock.now()),
        })
        : null
      return {
        run: runRef,
        dataset: { ...briefOf(dataset), bars: n },
        signal: wf.signal,
        signal_id: signalId,
        signal_bar: iso(lastTs),
        best: wf.best,
        oos_stats: oosStats,
        configs_planned: configs.length,
        configs_tried: wf.configs_tried,
        deflated_sharpe: wf.deflated_sharpe,
        walk_forward: wf.walk_forward,
        windows: { in_sample: inSample, out_of_sample: outOfSample, step: body.step ?? outOfSample, folds: wf.folds.length },
        folds: wf.folds.map((f) => ({
          ...f,
          in_sample: { ...f.in_sample, start: iso(f.in_sample.start), end: iso(f.in_sample.end) },
          out_of_sample: { ...f.out_of_sample, start: iso(f.out_of_sample.start), end: iso(f.out_of_sample.end) },
        })),
        leaderboard: wf.leaderboard,
        bars_per_year: wf.bars_per_year,
        complete: wf.complete,
      }
    },

    async maxEdgeSignalV10(body: MaxEdgeV10Body) {
      const dataset = resolveDataset(repo, body.dataset)
      const bars = cache.get(dataset, null)
      needBars(bars, 3, dataset, null)
      const grid = { fast: body.fast ?? STRATEGIES.sma_cross.grid.fast!, slow: body.slow ?? STRATEGIES.sma_cross.grid.slow! }
      const pairs = countPairs(grid.fast, grid.slow)
      if (pairs === 0) throw new Refusal('invalid_input', 'the grid has no pair with fast < slow', { issues: [{ path: 'fast', message: 'some fast value must be smaller than some slow value' }] })
      if (pairs > MAX_V10_PAIRS) {
        throw new Refusal('over_limit', `the grid has ${pairs} (fast, slow) pairs, over the limit of ${MAX_V10_PAIRS}`, {
          hints: { limit: { name: 'grid_pairs', value: MAX_V10_PAIRS, requested: pairs } },
        })
      }
      checkGridSize(pairs, MAX_V10_PAIRS, bars.ts.length)
      const options: BacktestOptions = { cash: body.cash, commission: body.commission }
      const payload: GridPayload = { bars, grid, options, maximize: body.maximize }
      const { result, elapsedMs } = await heavy('trading.max-edge-signal.v10', 'trading.inSampleGrid', payload, body.timeout_ms)
      const g = finite(result)
      const best = g.best ? { fast: g.best.fast, slow: g.best.slow, stats: statsView(result.best!.stats) } : null
      const lastTs = bars.ts[bars.ts.length - 1]!
      const runRef = storeRun('max_edge_v10', dataset, {
        strategy: 'sma_cross',
        params: best ? { fast: best.fast, slow: best.slow } : {},
        request: body,
        inputs: { grid, options, maximize: body.maximize },
        stats: { best, tried: g.tried, signal: g.signal },
        equity: null,
        elapsedMs,
      })
      if (best && g.signal) {
        repo.insertSignal({
          dataset_id: dataset.id, strategy: 'sma_cross', params: JSON.stringify({ fast: best.fast, slow: best.slow }),
          signal: g.signal, bar_ts: lastTs, origin: 'max-edge-signal-v10', run_id: runRef.id, created_at: iso(clock.now()),
        })
      }
      const top = [...g.rows].sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity)).slice(0, 10)
      return {
        signal: g.signal,
        strategy: 'sma_cross' as const,
        best,
        maximize: body.maximize,
        tried: g.tried,
        top,
        complete: g.complete,
        in_sample_only: true as const,
        warning: 'v10 picks the best pair on the same bars it is scored on (in-sample): expect the edge to shrink out of sample; /api/v11/trading/max-edge-signal scores choices out of sample',
        run_id: runRef.id,
        dataset: { ...briefOf(dataset), bars: bars.ts.length },
        signal_bar: iso(lastTs),
      }
    },
  }
}

// ---- request schemas of the searches (kept here: only this module reads them) ------------------------------------

const gridSchema = z.record(z.string(), z.record(z.string(), z.array(z.number()).min(1).max(200)))
  .describe('values to try per strategy and parameter, e.g. {"sma_cross": {"fast": [5,10], "slow": [20,50]}}; strategies left out use their default grid')

export const maxEdgeBody = z.object({
  dataset: z.union([z.number().int().positive(), z.string().min(1).max(64)]),
  strategies: z.array(z.enum(STRATEGY_NAMES as [StrategyName, ...StrategyName[]])).min(1).max(STRATEGY_NAMES.length).optional()
    .describe('default: every strategy'),
  grid: gridSchema.optional(),
  in_sample: z.number().int().min(20).max(1_000_000).optional().describe('in-sample window in bars (default: a fifth of the bars, 50..2520)'),
  out_of_sample: z.number().int().min(5).max(1_000_000).optional().describe('out-of-sample window in bars (default: in_sample / 4)'),
  step: z.number().int().min(1).max(1_000_000).optional().describe('bars between window starts (default: out_of_sample)'),
  max_configs: z.number().int().min(1).max(MAX_CONFIGS).optional().describe(`refuse grids with more configurations (≤ ${MAX_CONFIGS})`),
  cash: z.number().positive().max(1e12).default(10_000),
  commission: z.number().min(0).max(0.1).default(0.001),
  spread: z.number().min(0).max(0.1).optional(),
  slippage_bps: z.number().min(0).max(1000).optional(),
  allow_short: z.boolean().default(false),
  timeout_ms: z.number().int().min(1).max(60_000).optional(),
}).strict()
export type MaxEdgeBody = z.infer<typeof maxEdgeBody>

const V10_MAXIMIZE = ['sharpe_ratio', 'return_pct', 'sortino_ratio', 'calmar_ratio', 'equity_final', 'sqn', 'win_rate_pct'] as const

export const maxEdgeV10Body = z.object({
  dataset: z.union([z.number().int().positive(), z.string().min(1).max(64)]),
  fast: z.array(z.number().int().min(1).max(1000)).min(1).max(200).optional(),
  slow: z.array(z.number().int().min(2).max(1000)).min(1).max(200).optional(),
  maximize: z.enum(V10_MAXIMIZE).default('sharpe_ratio'),
  cash: z.number().positive().max(1e12).default(10_000),
  commission: z.number().min(0).max(0.1).default(0.002),
  timeout_ms: z.number().int().min(1).max(60_000).optional(),
}).strict()
export type MaxEdgeV10Body = z.infer<typeof maxEdgeV10Body>

// ---- bars cache -------------------------------------------------------------------------------------------------

/**
 * Datasets never change after import (a repeat import with other bars is refused), so their bars are read from
 * SQLite once and kept, least recently used first out, within `limit` bars. Keyed by id and checksum.
 */
function createBarsCache(repo: TradingRepository, limit: number) {
  const entries = new Map<string, Bars>()
  let held = 0
  return {
    get(dataset: DatasetRow, range: { from: number; to: number } | null): Bars {
      const key = `${dataset.id}:${dataset.sha256}`
      let bars = entries.get(key)
      if (bars) {
        entries.delete(key)
        entries.set(key, bars)
      } else {
        bars = repo.loadBars(dataset.id)
        if (bars.ts.length <= limit) {
          entries.set(key, bars)
          held += bars.ts.length
          for (const [oldKey, old] of entries) {
            if (held <= limit) break
            entries.delete(oldKey)
            held -= old.ts.length
          }
        }
      }
      return range ? sliceBars(bars, range.from, range.to) : bars
    },
  }
}

/** A copy of the bars with from ≤ ts ≤ to (a copy, not a view: views would carry the whole buffer to the mill). */
function sliceBars(bars: Bars, from: number, to: number): Bars {
  const lo = firstIndex(bars.ts, (t) => t >= from)
  const hi = firstIndex(bars.ts, (t) => t > to)
  return {
    ts: bars.ts.slice(lo, hi), open: bars.open.slice(lo, hi), high: bars.high.slice(lo, hi),
    low: bars.low.slice(lo, hi), close: bars.close.slice(lo, hi), volume: bars.volume.slice(lo, hi),
  }
}

/** First index of sorted values where `past` holds (it holds for all later ones too), or the length. */
function firstIndex(values: Float64Array, past: (value: number) => boolean): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (past(values[mid]!)) hi = mid
    else lo = mid + 1
  }
  return lo
}

// ---- helpers ------------------------------------------------------------------------------------------------------

function strategyParamsOf(strategy: StrategyName, raw: Record<string, unknown>): Record<string, number> {
  try {
    return parseStrategyParams(strategy, raw)
  } catch (err) {
    if (err instanceof z.ZodError) {
      const issues = issuesFromZod(err, 'params')
      throw new Refusal('invalid_input', `params of ${strategy} are invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
        issues,
        hints: { defaults: STRATEGIES[strategy].defaults },
      })
    }
    throw err
  }
}

function gridOf(raw: Record<string, Record<string, number[]>> | undefined, strategies: readonly StrategyName[]) {
  if (!raw) return undefined
  const out: Partial<Record<StrategyName, Record<string, number[]>>> = {}
  for (const [name, values] of Object.entries(raw)) {
    if (!STRATEGY_NAMES.includes(name as StrategyName)) {
      throw new Refusal('invalid_input', `grid names an unknown strategy "${name}"`, {
        issues: [{ path: `grid.${name}`, message: 'unknown strategy' }],
        hints: { valid_choices: STRATEGY_NAMES },
      })
    }
    if (!strategies.includes(name as StrategyName)) {
      throw new Refusal('invalid_input', `grid names ${name}, which is not in strategies`, { issues: [{ path: `grid.${name}`, message: 'not in strategies' }] })
    }
    const known = Object.keys(STRATEGIES[name as StrategyName].defaults)
    for (const param of Object.keys(values)) {
      if (!known.includes(param)) {
        throw new Refusal('invalid_input', `${name} has no parameter "${param}"`, {
          issues: [{ path: `grid.${name}.${param}`, message: 'unknown parameter' }],
          hints: { valid_choices: known },
        })
      }
    }
    // Parameters left out of a strategy's grid keep that strategy's default search values.
    out[name as StrategyName] = { ...STRATEGIES[name as StrategyName].grid, ...values }
  }
  return out
}

function checkGridSize(configs: number, maxConfigs: number, bars: number): void {
  if (configs > maxConfigs) {
    throw new Refusal('over_limit', `the grid has ${configs} configurations, over the limit of ${maxConfigs}`, {
      hints: { limit: { name: 'configs', value: maxConfigs, requested: configs } },
    })
  }
  if (configs * bars > MAX_CONFIG_BARS) {
    throw new Refusal('over_limit', `configurations × bars = ${configs} × ${bars} = ${configs * bars}, over the limit of ${MAX_CONFIG_BARS}; narrow the grid`, {
      hints: { limit: { name: 'config_bars', value: MAX_CONFIG_BARS, requested: configs * bars } },
    })
  }
}

function countPairs(fast: number[], slow: number[]): number {
  const f = [...new Set(fast)]
  const s = [...new Set(slow)]
  let n = 0
  for (const a of f) for (const b of s) if (a < b) n++
  return n
}

interface CostBody {
  cash: number
  commission: number
  spread?: number | undefined
  slippage_bps?: number | undefined
  allow_short: boolean
  finalize_trades?: boolean
  size?: { fraction: number } | { units: number } | undefined
}

function optionsOf(body: CostBody): BacktestOptions {
  const options: BacktestOptions = { cash: body.cash, commission: body.commission, allowShort: body.allow_short }
  if (body.spread !== undefined) options.spread = body.spread
  if (body.slippage_bps !== undefined) options.slippageBps = body.slippage_bps
  if (body.finalize_trades) options.finalizeTrades = true
  if (body.size) options.size = body.size
  return options
}

function settingsOf(body: CostBody) {
  return {
    cash: body.cash,
    commission: body.commission,
    spread: body.spread ?? 0,
    slippage_bps: body.slippage_bps ?? 0,
    allow_short: body.allow_short,
    finalize_trades: body.finalize_trades ?? false,
    size: body.size ?? null,
  }
}

function rangeOf(from: number | string | undefined, to: number | string | undefined): { from: number; to: number } | null {
  if (from === undefined && to === undefined) return null
  const parse = (value: number | string | undefined, name: string, fallback: number): number => {
    if (value === undefined) return fallback
    const ms = typeof value === 'number' ? value : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
    if (!Number.isFinite(ms)) throw new Refusal('invalid_input', `${name} ${JSON.stringify(value)} is not a date`, { issues: [{ path: name, message: 'not an ISO 8601 date/time or epoch ms' }] })
    return ms
  }
  const range = { from: parse(from, 'from', Number.MIN_SAFE_INTEGER), to: parse(to, 'to', Number.MAX_SAFE_INTEGER) }
  if (range.from > range.to) throw new Refusal('invalid_input', 'from is after to', { issues: [{ path: 'from', message: 'must not be after to' }] })
  return range
}

function needBars(bars: Bars, min: number, dataset: DatasetRow, range: { from: number; to: number } | null): void {
  if (bars.ts.length >= min) return
  const where = range ? ' in the requested range' : ''
  throw new Refusal('invalid_input', `dataset #${dataset.id} (${dataset.symbol}) has ${bars.ts.length} bars${where}; at least ${min} are needed`)
}

const briefOf = (d: DatasetRow) => ({ id: d.id, symbol: d.symbol, timeframe: d.timeframe, source: d.source })

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits

export type { TradingRepository }
