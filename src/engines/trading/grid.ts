// The v10 in-sample grid: every sma_cross(fast, slow) pair backtested on the whole series, ranked by one statistic.
import type { BacktestOptions, Bars, Signal, Stats } from './types.js'
import { executeEvents } from './execution.js'
import { computeStats } from './stats.js'
import { STRATEGIES, type IndicatorCache } from './strategies.js'

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

export interface GridResult {
  /** Pairs with fast < slow that were run (all of them unless stopped early). */
  tried: number
  maximize: keyof Stats
  rows: GridRow[]
  best: { fast: number; slow: number; stats: Stats } | null
  /** The best pair's position after the latest bar. */
  signal: Signal | null
  complete: boolean
}

/**
 * Backtests sma_cross for every (fast, slow) with fast < slow over all bars — in-sample, with no out-of-sample
 * check (the deprecated v10 behaviour) — and picks the highest `maximize` statistic (nulls rank last; ties keep
 * the first pair in grid order). Each SMA period is computed once and shared by every pair that uses it.
 */
export function inSampleGrid(
  bars: Bars,
  grid: SmaGrid,
  options: BacktestOptions,
  maximize: keyof Stats = 'sharpe_ratio',
  shouldStop?: () => boolean,
  /** Called after each pair with the pairs tried (optional; jobs show it as progress). */
  onProgress?: (pairsDone: number) => void,
): GridResult {
  const cache: IndicatorCache = new Map()
  const rows: GridRow[] = []
  let best: GridResult['best'] = null
  let bestScore = -Infinity
  let bestPositions: Float64Array | null = null
  let complete = true
  const fasts = [...new Set(grid.fast)].sort((a, b) => a - b)
  const slows = [...new Set(grid.slow)].sort((a, b) => a - b)
  outer:
  for (const fast of fasts) {
    for (const slow of slows) {
      if (!(fast < slow)) continue
      if (shouldStop?.()) {
        complete = false
        break outer
      }
      const params = STRATEGIES.sma_cross.params.parse({ fast, slow })
      const ev = STRATEGIES.sma_cross.events(bars, params, cache)
      const run = executeEvents(bars, ev, options)
      const stats = computeStats({
        ts: bars.ts, close: bars.close, equity: run.equity,
        trades: run.trades.slice(0, run.closedTrades), firstTradingBar: run.warmup,
      })
      const raw = stats[maximize]
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
      if (best === null || s > bestScore) {
        best = { fast, slow, stats }
        bestScore = s
        bestPositions = run.positions
      }
    }
  }
  let signal: Signal | null = null
  if (bestPositions && bestPositions.length) {
    const last = bestPositions[bestPositions.length - 1]!
    signal = last > 0 ? 'long' : last < 0 ? 'short' : 'flat'
  }
  return { tried: rows.length, maximize, rows, best, signal, complete }
}
