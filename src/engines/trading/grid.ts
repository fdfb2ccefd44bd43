// The v10 in-sample grid: every sma_cross(fast, slow) pair backtested on the whole series, ranked by one statistic.
import type { BacktestOptions, Bars, Signal, Stats } from './types.js'
import { executeEvents, type Execution } from './execution.js'
import { computeStats, statsAnnualization, type Annualization } from './stats.js'
import { barReturns, blockMoments, pboBlocks } from './overfitting.js'
import { crossEvents, firstDefined, STRATEGIES, type StrategyEvents } from './strategies.js'
import { sma } from './indicators.js'
import { LEAN_UNSUPPORTED, leanBroker, leanBuffers, leanExecute } from './lean-run.js'
import { isLightStat, lightStats, lightStatsScratch, type LightStats } from './light-stats.js'

export interface SmaGrid {
  fast: number[]
  slow: number[]
}

export interface GridRow {
  fast: number
  slow: number
  score: number | null
  return_pct: number
  sharpe_ratio: number | null
  max_drawdown_pct: number | null
  trades: number
}

/** A contiguous run of the grid's pairs, by index in grid order (fast, then slow, both ascending): [from, to). */
export interface GridSlice {
  from: number
  to: number
}

export interface GridResult {
  /** Pairs with fast < slow that were run (all of them unless stopped early). */
  tried: number
  maximize: keyof Stats
  rows: GridRow[]
  best: { fast: number; slow: number; stats: Stats } | null
  /** The best pair's position after the latest bar. */
  signal: Signal | null
  /** How the statistics' annualised figures were annualised. */
  annualization: Annualization
  /** PBO blocks of the trial matrix, and per row in order its (count, sum, sum of squares) per block. */
  blocks: number
  trial_blocks: Float64Array
  /** The best pair's per-bar returns (for its deflated Sharpe ratio). */
  best_returns: Float64Array | null
  complete: boolean
}

/**
 * Backtests sma_cross for every (fast, slow) with fast < slow over all bars — in-sample, with no out-of-sample
 * check (the deprecated v10 behaviour) — and picks the highest `maximize` statistic (nulls rank last; ties keep
 * the first pair in grid order). Each SMA period is computed once and shared by every pair that uses it; each pair
 * runs the lean broker over reused buffers and only the statistics a row needs (`lightStats`), and the best pair
 * alone is re-run in full for its statistics and signal — the same figures as a full backtest of every pair.
 */
export function inSampleGrid(
  bars: Bars,
  grid: SmaGrid,
  options: BacktestOptions,
  maximize: keyof Stats = 'sharpe_ratio',
  shouldStop?: () => boolean,
  /** Called after each pair with the pairs tried (optional; jobs show it as progress). */
  onProgress?: (pairsDone: number) => void,
  /** Only these pairs (a worker's share of a split grid; `mergeGridResults` joins the shares). Default: all. */
  slice?: GridSlice,
): GridResult {
  const n = bars.close.length
  const fasts = [...new Set(grid.fast)].sort((a, b) => a - b)
  const slows = [...new Set(grid.slow)].sort((a, b) => a - b)
  validatePairs(fasts, slows)
  // each period's SMA and its first defined bar, once
  const smas = new Map<number, { values: Float64Array; first: number }>()
  const smaOf = (w: number): { values: Float64Array; first: number } => {
    let v = smas.get(w)
    if (!v) {
      const values = sma(bars.close, w)
      smas.set(w, (v = { values, first: firstDefined(values) }))
    }
    return v
  }
  const broker = leanBroker(options)
  const lean = broker !== null && isLightStat(maximize) ? { broker, buffers: leanBuffers(n), scratch: lightStatsScratch(bars.ts) } : null

  // Each pair's per-bar returns in PBO blocks (the trial matrix's sufficient statistics); every slice uses the blocks
  // of the whole grid, so the shares join.
  const blocks = pboBlocks(n - 1, gridPairCount(grid))
  const trialBlocks: Float64Array[] = []
  const returns = new Float64Array(n)
  const rows: GridRow[] = []
  let bestAt = -1
  let bestScore = -Infinity
  let complete = true
  const from = slice?.from ?? 0
  const to = slice?.to ?? Number.POSITIVE_INFINITY
  let pairAt = -1
  outer:
  for (const fast of fasts) {
    for (const slow of slows) {
      if (!(fast < slow)) continue
      pairAt++
      if (pairAt < from) continue
      if (pairAt >= to) break outer
      if (shouldStop?.()) {
        complete = false
        break outer
      }
      const a = smaOf(fast)
      const b = smaOf(slow)
      let stats: LightStats | Stats | null = null
      let equity: Float64Array | null = null
      if (lean) {
        // the crossovers are read from the two lines inside the broker's loop (crossEvents' warm-up: the later start)
        const closed = leanExecute(bars, { fast: a.values, slow: b.values }, Math.max(a.first, b.first), lean.broker, lean.buffers)
        if (closed !== LEAN_UNSUPPORTED) {
          stats = lightStats(lean.buffers, closed, lean.scratch)
          equity = lean.buffers.equity
        }
      }
      if (!stats || !equity) {
        const full = fullStats(bars, crossEvents(a.values, b.values), options)
        stats = full.stats
        equity = full.run.equity
      }
      trialBlocks.push(blockMoments(barReturns(equity, returns), 1, n, blocks))
      const raw = (stats as Partial<Stats>)[maximize]
      const score = typeof raw === 'number' && Number.isFinite(raw) ? raw : null
      onProgress?.(rows.length + 1)
      rows.push({
        fast, slow, score,
        return_pct: stats.return_pct,
        sharpe_ratio: stats.sharpe_ratio,
        max_drawdown_pct: stats.max_drawdown_pct,
        trades: stats.trades,
      })
      const s = score ?? -Infinity
      if (bestAt < 0 || s > bestScore) {
        bestAt = rows.length - 1
        bestScore = s
      }
    }
  }
  let best: GridResult['best'] = null
  let signal: Signal | null = null
  let bestReturns: Float64Array | null = null
  if (bestAt >= 0) {
    const { fast, slow } = rows[bestAt]!
    const full = fullStats(bars, crossEvents(smaOf(fast).values, smaOf(slow).values), options)
    best = { fast, slow, stats: full.stats }
    bestReturns = barReturns(full.run.equity, new Float64Array(n)).slice(1)
    const positions = full.run.positions
    if (positions.length) {
      const last = positions[positions.length - 1]!
      signal = last > 0 ? 'long' : last < 0 ? 'short' : 'flat'
    }
  }
  const joined = new Float64Array(trialBlocks.length * 3 * blocks)
  trialBlocks.forEach((m, k) => joined.set(m, k * 3 * blocks))
  return { tried: rows.length, maximize, rows, best, signal, annualization: statsAnnualization(bars.ts), blocks, trial_blocks: joined, best_returns: bestReturns, complete }
}

/** How many pairs (fast < slow) the grid holds: the indices a `GridSlice` counts. */
export function gridPairCount(grid: SmaGrid): number {
  const fasts = new Set(grid.fast)
  const slows = [...new Set(grid.slow)]
  let pairs = 0
  for (const fast of fasts) for (const slow of slows) if (fast < slow) pairs++
  return pairs
}

/** `pairs` cut into `parts` contiguous slices of near-equal size (each pair costs about the same: one pass over the bars). */
export function gridSlices(pairs: number, parts: number): GridSlice[] {
  const count = Math.max(1, Math.min(parts, pairs))
  return Array.from({ length: count }, (_, i) => ({ from: Math.floor((i * pairs) / count), to: Math.floor(((i + 1) * pairs) / count) }))
}

/**
 * The answer of the whole grid from the answers of its slices, in slice order: the rows joined, and the best of the
 * slices' bests under the grid's own rule (the highest score, nulls last, ties to the earlier pair) — the same rows,
 * best, statistics and signal as one `inSampleGrid` over all pairs, since each slice ran the same code on its pairs.
 * A slice stopped early leaves out the end of its own share, so an incomplete answer may miss pairs inside the grid.
 */
export function mergeGridResults(parts: GridResult[]): GridResult {
  let best: GridResult['best'] = null
  let signal: Signal | null = null
  let bestReturns: Float64Array | null = null
  let bestScore = -Infinity
  for (const part of parts) {
    if (!part.best) continue
    const { fast, slow } = part.best
    const score = part.rows.find((row) => row.fast === fast && row.slow === slow)!.score ?? -Infinity
    if (best === null || score > bestScore) {
      best = part.best
      signal = part.signal
      bestReturns = part.best_returns
      bestScore = score
    }
  }
  const joined = new Float64Array(parts.reduce((k, part) => k + part.trial_blocks.length, 0))
  parts.reduce((at, part) => (joined.set(part.trial_blocks, at), at + part.trial_blocks.length), 0)
  return {
    tried: parts.reduce((n, part) => n + part.tried, 0),
    maximize: parts[0]!.maximize,
    rows: parts.flatMap((part) => part.rows),
    best,
    signal,
    annualization: parts[0]!.annualization,
    blocks: parts[0]!.blocks,
    trial_blocks: joined,
    best_returns: bestReturns,
    complete: parts.every((part) => part.complete),
  }
}

function fullStats(bars: Bars, ev: StrategyEvents, options: BacktestOptions): { run: Execution; stats: Stats } {
  const run = executeEvents(bars, ev, options)
  const stats = computeStats({
    ts: bars.ts, close: bars.close, equity: run.equity,
    trades: run.trades.slice(0, run.closedTrades), firstTradingBar: run.warmup,
  })
  return { run, stats }
}

/**
 * The schema's checks, once per distinct period instead of once per pair: a pair is valid exactly when both its
 * periods are (fast < slow holds for every pair run), so each period is parsed in one pair it takes part in.
 */
function validatePairs(fasts: number[], slows: number[]): void {
  const schema = STRATEGIES.sma_cross.params
  for (const fast of fasts) {
    const slow = slows.find((s) => fast < s)
    if (slow !== undefined) schema.parse({ fast, slow })
  }
  for (const slow of slows) {
    const fast = fasts.find((f) => f < slow)
    if (fast !== undefined) schema.parse({ fast, slow })
  }
}
