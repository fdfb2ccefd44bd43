// Monte Carlo on a run's trades: the trade returns resampled with replacement, each path compounded from the starting
// equity, and percentile bands of equity after each number of trades.
import { createRng } from './prng.js'

/** Steps (numbers of trades) the bands are given at, at most. */
export const BAND_STEPS = 200

export interface TradeBands {
  paths: number
  trades: number
  seed: number
  /** Equity percentiles after `step` trades (step 0 is the start). */
  bands: Array<{ step: number; p5: number; p25: number; p50: number; p75: number; p95: number }>
  final_equity: { p5: number; p25: number; p50: number; p75: number; p95: number; mean: number }
  max_drawdown_pct: { p5: number; p50: number; p95: number }
  probability_of_loss: number
  complete: boolean
}

const quantile = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1) + 0.5))]!

/**
 * `returns` are the trades' returns as fractions; each path draws as many trades as the run had, with replacement, and
 * compounds the whole equity by each (the default all-cash sizing). Same seed, same bands.
 */
export function tradeBands(returns: ArrayLike<number>, startEquity: number, paths: number, seed: number, shouldStop?: () => boolean): TradeBands {
  const n = returns.length
  if (n === 0) throw new RangeError('the run has no closed trades to resample')
  const steps = Array.from(new Set(Array.from({ length: Math.min(BAND_STEPS, n) + 1 }, (_v, k) => Math.round((k * n) / Math.min(BAND_STEPS, n)))))
  const at = new Float64Array(steps.length * paths)
  const finals = new Float64Array(paths)
  const drawdowns = new Float64Array(paths)
  const rng = createRng(seed)
  let done = 0
  for (let p = 0; p < paths; p++) {
    if (shouldStop?.()) break
    let equity = startEquity
    let peak = equity
    let worst = 0
    let s = 0
    at[p] = equity
    for (let k = 1; k <= n; k++) {
      equity *= 1 + returns[Math.floor(rng.next() * n)]!
      if (equity > peak) peak = equity
      worst = Math.max(worst, 1 - equity / peak)
      while (s + 1 < steps.length && steps[s + 1] === k) at[++s * paths + p] = equity
    }
    finals[p] = equity
    drawdowns[p] = -worst * 100
    done++
  }
  const bands = steps.map((step, s) => {
    const sorted = at.slice(s * paths, s * paths + done).sort()
    return { step, p5: quantile(sorted, 0.05), p25: quantile(sorted, 0.25), p50: quantile(sorted, 0.5), p75: quantile(sorted, 0.75), p95: quantile(sorted, 0.95) }
  })
  const f = finals.slice(0, done).sort()
  const d = drawdowns.slice(0, done).sort()
  return {
    paths: done,
    trades: n,
    seed,
    bands,
    final_equity: { p5: quantile(f, 0.05), p25: quantile(f, 0.25), p50: quantile(f, 0.5), p75: quantile(f, 0.75), p95: quantile(f, 0.95), mean: f.reduce((a, x) => a + x, 0) / Math.max(1, done) },
    max_drawdown_pct: { p5: quantile(d, 0.05), p50: quantile(d, 0.5), p95: quantile(d, 0.95) },
    probability_of_loss: f.filter((x) => x < startEquity).length / Math.max(1, done),
    complete: done === paths,
  }
}
