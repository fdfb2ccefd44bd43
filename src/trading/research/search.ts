// The signal searches: v11's walk-forward (chosen in sample, scored out of sample) and v10's in-sample sma_cross grid.
import { gridPairCount, gridSlices, mergeGridResults, STRATEGIES, STRATEGY_NAMES } from '../../engines/trading/index.js'
import { enumerateConfigs, type ConfigScore, type WalkForwardFold } from '../../engines/trading/walk-forward.js'
import type { TrialRow } from '../rows.js'
import type { BacktestOptions, StrategyName } from '../../engines/trading/types.js'
import type { GridPayload, WalkForwardPayload } from '../../mill/tasks/trading.js'
import { Refusal } from '../../http/refusal.js'
import { resolveDataset } from '../datasets.js'
import { finite, iso, statsView } from '../present.js'
import type { MaxEdgeBody, MaxEdgeV10Body } from '../schemas.js'
import type { ResearchDeps } from './deps.js'
import { gridShares } from './grid-shares.js'
import { briefOf, needBars, optionsOf, settingsOf } from './inputs.js'
import { MAX_CONFIG_BARS, MAX_CONFIGS, MAX_V10_PAIRS } from './limits.js'

export async function maxEdgeSignal(
  deps: ResearchDeps,
  body: MaxEdgeBody,
  as: { kind: 'max_edge' | 'full_cycle_search'; recordSignal: boolean } = { kind: 'max_edge', recordSignal: true },
) {
  const dataset = await resolveDataset(deps.repo, body.dataset)
  const bars = await deps.bars.get(dataset, null)
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
  const { result, elapsedMs } = await deps.heavy('trading.max-edge-signal', 'trading.walkForward', payload, body.timeout_ms)
  const wf = finite(result)
  const oosStats = wf.oos_stats ? statsView(result.oos_stats!, result.oos_stats_annualization) : null
  const lastTs = bars.ts[n - 1]!
  const runRef = await deps.runs.record(as.kind, dataset, {
    strategy: wf.best?.strategy ?? null,
    params: wf.best?.params ?? {},
    request: body,
    inputs: { strategies, grid, inSample, outOfSample, step: body.step ?? null, settings: settingsOf(body), maxConfigs },
    stats: {
      best: wf.best, configs_tried: wf.configs_tried, deflated_sharpe: wf.deflated_sharpe, overfitting: wf.overfitting, oos_stats: oosStats,
      signal: wf.signal, walk_forward: wf.walk_forward, annualization: wf.annualization, folds: foldsView(wf.folds),
    },
    equity: null,
    trials: trialRows(wf.scores, result.trial_blocks, wf.overfitting.pbo_detail.blocks),
    elapsedMs,
  })
  const signalId = as.recordSignal && wf.best && wf.signal
    ? await deps.repo.insertSignal({
      dataset_id: dataset.id, strategy: wf.best.strategy, params: JSON.stringify(wf.best.params), signal: wf.signal,
      bar_ts: lastTs, origin: 'max-edge-signal', run_id: runRef.id, created_at: iso(deps.clock.now()),
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
    overfitting: wf.overfitting,
    walk_forward: wf.walk_forward,
    windows: { in_sample: inSample, out_of_sample: outOfSample, step: body.step ?? outOfSample, folds: wf.folds.length },
    folds: foldsView(wf.folds),
    leaderboard: wf.leaderboard,
    bars_per_year: wf.bars_per_year,
    annualization: wf.annualization,
    complete: wf.complete,
  }
}

export async function maxEdgeSignalV10(deps: ResearchDeps, body: MaxEdgeV10Body) {
  const dataset = await resolveDataset(deps.repo, body.dataset)
  const bars = await deps.bars.get(dataset, null)
  needBars(bars, 3, dataset, null)
  const grid = { fast: body.fast ?? STRATEGIES.sma_cross.grid.fast!, slow: body.slow ?? STRATEGIES.sma_cross.grid.slow! }
  const pairs = gridPairCount(grid)
  if (pairs === 0) throw new Refusal('invalid_input', 'the grid has no pair with fast < slow', { issues: [{ path: 'fast', message: 'some fast value must be smaller than some slow value' }] })
  if (pairs > MAX_V10_PAIRS) {
    throw new Refusal('over_limit', `the grid has ${pairs} (fast, slow) pairs, over the limit of ${MAX_V10_PAIRS}`, {
      hints: { limit: { name: 'grid_pairs', value: MAX_V10_PAIRS, requested: pairs } },
    })
  }
  checkGridSize(pairs, MAX_V10_PAIRS, bars.ts.length)
  const options: BacktestOptions = { cash: body.cash, commission: body.commission }
  const payload: GridPayload = { bars, grid, options, maximize: body.maximize }
  const { results, elapsedMs } = await deps.heavySplit('trading.max-edge-signal.v10', 'trading.inSampleGrid',
    (idle) => gridSlices(pairs, gridShares(pairs, bars.ts.length, idle)).map((slice) => ({ ...payload, slice })), body.timeout_ms)
  const result = mergeGridResults(results)
  // PBO's combinations grow with the grid: worked out in the mill too.
  const verdict = await deps.heavy('trading.max-edge-signal.v10', 'trading.overfitting',
    { trialBlocks: result.trial_blocks, blocks: result.blocks, bestReturns: result.best_returns }, body.timeout_ms)
  const { deflated_sharpe_detail: _detail, ...overfitting } = finite(verdict.result)
  const { trial_blocks: _blocks, best_returns: _returns, ...plain } = result
  const g = finite(plain)
  const best = g.best ? { fast: g.best.fast, slow: g.best.slow, stats: statsView(result.best!.stats, result.annualization) } : null
  const lastTs = bars.ts[bars.ts.length - 1]!
  const runRef = await deps.runs.record('max_edge_v10', dataset, {
    strategy: 'sma_cross',
    params: best ? { fast: best.fast, slow: best.slow } : {},
    request: body,
    inputs: { grid, options, maximize: body.maximize },
    stats: { best, tried: g.tried, signal: g.signal, overfitting },
    equity: null,
    elapsedMs,
  })
  if (best && g.signal) {
    await deps.repo.insertSignal({
      dataset_id: dataset.id, strategy: 'sma_cross', params: JSON.stringify({ fast: best.fast, slow: best.slow }),
      signal: g.signal, bar_ts: lastTs, origin: 'max-edge-signal-v10', run_id: runRef.id, created_at: iso(deps.clock.now()),
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
    overfitting,
    warning: 'v10 picks the best pair on the same bars it is scored on (in-sample): expect the edge to shrink out of sample; /api/v11/trading/max-edge-signal scores choices out of sample',
    run_id: runRef.id,
    dataset: { ...briefOf(dataset), bars: bars.ts.length },
    signal_bar: iso(lastTs),
  }
}

const foldsView = (folds: readonly WalkForwardFold[]) => folds.map((f) => ({
  ...f,
  in_sample: { ...f.in_sample, start: iso(f.in_sample.start), end: iso(f.in_sample.end) },
  out_of_sample: { ...f.out_of_sample, start: iso(f.out_of_sample.start), end: iso(f.out_of_sample.end) },
}))

/** The search's trials as stored with its run: configuration, score, and its per-bar returns' block moments. */
function trialRows(scores: readonly ConfigScore[], blocks: Float64Array, perTrial: number): TrialRow[] {
  const width = 3 * perTrial
  return scores.map((score, k) => ({
    strategy: score.strategy,
    params: score.params,
    score: score.oos_sharpe,
    return_pct: Number.isFinite(score.oos_return_pct) ? score.oos_return_pct : null,
    blocks: Buffer.from(blocks.buffer, blocks.byteOffset + k * width * 8, width * 8).toString('base64'),
  }))
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
