// The baselines of bench:backtest: plain JavaScript loops over Float64Arrays with the engine's fill rules and no
// statistics — what a careful hand-written sma_cross backtest costs, so the engine's overhead shows as a ratio.

/** backtesting.py's "all available equity" order size, as the engine uses it. */
const FULL_EQUITY = 1 - 2.220446049250313e-16

export interface LoopResult {
  equity: number
  trades: number
}

/**
 * sma_cross(fast, slow), long only: running-sum SMAs computed inside the loop, strict crossovers seen on the close,
 * filled at the next bar's open in whole units of all available cash, commission at entry and at exit.
 */
export function sameRulesLoop(open: Float64Array, close: Float64Array, fast: number, slow: number, cash0: number, commission: number): LoopResult {
  const n = close.length
  let sumFast = 0
  let sumSlow = 0
  let prevFast = NaN
  let prevSlow = NaN
  let cash = cash0
  let units = 0
  let entry = 0
  let pending = 0
  let trades = 0
  let equity = cash0
  for (let i = 0; i < n; i++) {
    if (pending !== 0) {
      const price = open[i]!
      if (units !== 0) {
        cash += units * (price - entry) - units * price * commission
        units = 0
        trades++
      }
      if (pending > 0) {
        const qty = Math.floor((cash * FULL_EQUITY) / (price + price * commission))
        if (qty > 0) {
          units = qty
          entry = price
          cash -= qty * price * commission
        }
      }
      pending = 0
    }
    const c = close[i]!
    sumFast += c
    sumSlow += c
    if (i >= fast) sumFast -= close[i - fast]!
    if (i >= slow) sumSlow -= close[i - slow]!
    equity = units !== 0 ? cash + units * (c - entry) : cash
    if (i >= slow - 1) {
      const f = sumFast / fast
      const s = sumSlow / slow
      if (prevFast < prevSlow && f > s) pending = 1
      else if (prevSlow < prevFast && s > f) pending = -1
      prevFast = f
      prevSlow = s
    }
  }
  return { equity, trades }
}

/** The same loop filling at the signal bar's close (no pending order): the cheapest rules there are. */
export function closeFillLoop(close: Float64Array, fast: number, slow: number, cash0: number, commission: number): LoopResult {
  const n = close.length
  let sumFast = 0
  let sumSlow = 0
  let prevFast = NaN
  let prevSlow = NaN
  let cash = cash0
  let units = 0
  let entry = 0
  let trades = 0
  for (let i = 0; i < n; i++) {
    const c = close[i]!
    sumFast += c
    sumSlow += c
    if (i >= fast) sumFast -= close[i - fast]!
    if (i >= slow) sumSlow -= close[i - slow]!
    if (i >= slow - 1) {
      const f = sumFast / fast
      const s = sumSlow / slow
      const up = prevFast < prevSlow && f > s
      const down = prevSlow < prevFast && s > f
      if ((up || down) && units !== 0) {
        cash += units * (c - entry) - units * c * commission
        units = 0
        trades++
      }
      if (up) {
        const qty = Math.floor((cash * FULL_EQUITY) / (c + c * commission))
        if (qty > 0) {
          units = qty
          entry = c
          cash -= qty * c * commission
        }
      }
      prevFast = f
      prevSlow = s
    }
  }
  return { equity: units !== 0 ? cash + units * (close[n - 1]! - entry) : cash, trades }
}

/** Running-sum SMA (NaN during warm-up): the grid baseline computes each window once, like the engine. */
export function plainSma(close: Float64Array, n: number): Float64Array {
  const out = new Float64Array(close.length)
  let sum = 0
  for (let i = 0; i < close.length; i++) {
    sum += close[i]!
    if (i >= n) sum -= close[i - n]!
    out[i] = i >= n - 1 ? sum / n : NaN
  }
  return out
}

/**
 * One configuration over precomputed SMAs with the same rules; writes the equity at each close into `equityOut`
 * when given (the walk-forward baseline reads its folds from it).
 */
export function crossLoop(
  open: Float64Array, close: Float64Array, a: Float64Array, b: Float64Array, slow: number,
  cash0: number, commission: number, equityOut?: Float64Array,
): LoopResult {
  const n = close.length
  let cash = cash0
  let units = 0
  let entry = 0
  let pending = 0
  let trades = 0
  let equity = cash0
  if (equityOut) equityOut.fill(cash0, 0, slow)
  for (let i = slow; i < n; i++) {
    if (pending !== 0) {
      const price = open[i]!
      if (units !== 0) {
        cash += units * (price - entry) - units * price * commission
        units = 0
        trades++
      }
      if (pending > 0) {
        const qty = Math.floor((cash * FULL_EQUITY) / (price + price * commission))
        if (qty > 0) {
          units = qty
          entry = price
          cash -= qty * price * commission
        }
      }
      pending = 0
    }
    equity = units !== 0 ? cash + units * (close[i]! - entry) : cash
    if (equityOut) equityOut[i] = equity
    const f0 = a[i - 1]!, s0 = b[i - 1]!, f1 = a[i]!, s1 = b[i]!
    if (f0 < s0 && f1 > s1) pending = 1
    else if (s0 < f0 && s1 > f1) pending = -1
  }
  return { equity, trades }
}

/** Every (fast, slow) pair with fast < slow, each SMA window computed once; the final equity of each pair. */
export function gridLoop(open: Float64Array, close: Float64Array, fasts: number[], slows: number[], cash0: number, commission: number): Float64Array {
  const smas = new Map<number, Float64Array>()
  for (const w of new Set([...fasts, ...slows])) smas.set(w, plainSma(close, w))
  const out = new Float64Array(fasts.length * slows.length)
  let k = 0
  for (const f of fasts) for (const s of slows) if (f < s) out[k++] = crossLoop(open, close, smas.get(f)!, smas.get(s)!, s, cash0, commission).equity
  return out.subarray(0, k)
}

export interface Fold {
  isFrom: number
  oosFrom: number
  oosTo: number
}

/**
 * Walk-forward over the same folds: each pair's equity curve once, each fold's in-sample winner by in-sample
 * return, and its out-of-sample returns compounded.
 */
export function walkForwardLoop(
  open: Float64Array, close: Float64Array, fasts: number[], slows: number[], folds: Fold[], cash0: number, commission: number,
): number {
  const smas = new Map<number, Float64Array>()
  for (const w of new Set([...fasts, ...slows])) smas.set(w, plainSma(close, w))
  const equity = new Float64Array(close.length)
  const bestIs = new Float64Array(folds.length).fill(-Infinity)
  const bestOos = new Float64Array(folds.length)
  for (const f of fasts) {
    for (const s of slows) {
      if (!(f < s)) continue
      crossLoop(open, close, smas.get(f)!, smas.get(s)!, s, cash0, commission, equity)
      for (let k = 0; k < folds.length; k++) {
        const w = folds[k]!
        const isReturn = equity[w.oosFrom - 1]! / equity[w.isFrom]! - 1
        if (isReturn > bestIs[k]!) {
          bestIs[k] = isReturn
          bestOos[k] = equity[w.oosTo - 1]! / equity[w.oosFrom - 1]! - 1
        }
      }
    }
  }
  let growth = 1
  for (let k = 0; k < folds.length; k++) growth *= 1 + bestOos[k]!
  return growth - 1
}
