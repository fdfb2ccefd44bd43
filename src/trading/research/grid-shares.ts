// How many of the mill's idle workers a v10 grid is spread over (bench:backtest measures what a share costs).
import type { IdleWorkers } from '../../mill/split.js'

/**
 * The least work (pairs × bars; ~20 ns a step) given a share of its own. A share costs a copy of the bars to its
 * worker (48 bytes a bar, ~0.03 ms for 2,520 bars), that worker's own SMAs (~0.6 ms more in all for 1,000 pairs on 2,520 bars) and a
 * round trip (~0.05 ms): about 3 % of this much work.
 */
export const GRID_SHARE_MIN_BAR_STEPS = 1_000_000
/** A worker not yet started is worth waiting for (0.2–0.5 s) only when each share is this much work (~0.5 s or more). */
export const GRID_COLD_SHARE_MIN_BAR_STEPS = 25_000_000

export function gridShares(pairs: number, bars: number, idle: IdleWorkers): number {
  const work = pairs * bars
  const workers = idle.warm + (work / (idle.warm + idle.cold) >= GRID_COLD_SHARE_MIN_BAR_STEPS ? idle.cold : 0)
  return Math.max(1, Math.min(workers, Math.floor(work / GRID_SHARE_MIN_BAR_STEPS)))
}
