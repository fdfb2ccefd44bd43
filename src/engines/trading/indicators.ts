// Technical indicators over Float64Array: one output value per bar, NaN while the indicator warms up.

export interface Bands {
  middle: Float64Array
  upper: Float64Array
  lower: Float64Array
}

export interface MacdLines {
  macd: Float64Array
  signal: Float64Array
  histogram: Float64Array
}

function assertPeriod(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`indicator period must be a positive integer, got ${n}`)
}

/**
 * Simple moving average of the last `n` values; NaN for the first n−1 bars.
 * Computed the way pandas' `Series.rolling(n).mean()` is (the reference library's `SMA`): one running sum with
 * separate Kahan compensations for added and removed values, and a window of identical values returns that value
 * exactly. Matching it bit for bit matters because strict crossovers compare two averages for equality.
 */
export function sma(values: Float64Array, n: number): Float64Array {
  return smaPair(values, n, n)[0]
}

/**
 * `[sma(values, n1), sma(values, n2)]` in one pass. Each Kahan sum is a chain of dependent additions, so one
 * average waits on its own latency; two independent chains in the same loop overlap, and the pair costs about
 * what one average costs alone.
 */
export function smaPair(values: Float64Array, n1: number, n2: number): [Float64Array, Float64Array] {
  assertPeriod(n1)
  assertPeriod(n2)
  const len = values.length
  const out1 = new Float64Array(len)
  const out2 = n2 === n1 ? out1 : new Float64Array(len)
  // the state of window 1 (suffix 1) and window 2 (suffix 2), side by side
  let sum1 = 0, compAdd1 = 0, compRemove1 = 0, nobs1 = 0, negatives1 = 0
  let sum2 = 0, compAdd2 = 0, compRemove2 = 0, nobs2 = 0, negatives2 = 0
  let sameRun = 0
  let prev = NaN
  for (let i = 0; i < len; i++) {
    if (i >= n1) {
      const v = values[i - n1]!
      if (v === v) {
        nobs1--
        const y = -v - compRemove1
        const t = sum1 + y
        compRemove1 = t - sum1 - y
        sum1 = t
        if (v < 0 || (v === 0 && 1 / v < 0)) negatives1--
      }
    }
    if (i >= n2) {
      const v = values[i - n2]!
      if (v === v) {
        nobs2--
        const y = -v - compRemove2
        const t = sum2 + y
        compRemove2 = t - sum2 - y
        sum2 = t
        if (v < 0 || (v === 0 && 1 / v < 0)) negatives2--
      }
    }
    const v = values[i]!
    if (v === v) {
      const negative = v < 0 || (v === 0 && 1 / v < 0) ? 1 : 0
      nobs1++
      const y1 = v - compAdd1
      const t1 = sum1 + y1
      compAdd1 = t1 - sum1 - y1
      sum1 = t1
      negatives1 += negative
      nobs2++
      const y2 = v - compAdd2
      const t2 = sum2 + y2
      compAdd2 = t2 - sum2 - y2
      sum2 = t2
      negatives2 += negative
      sameRun = v === prev ? sameRun + 1 : 1
      prev = v
    }
    out1[i] = windowMean(i, n1, sum1, nobs1, negatives1, sameRun, prev)
    if (n2 !== n1) out2[i] = windowMean(i, n2, sum2, nobs2, negatives2, sameRun, prev)
  }
  return [out1, out2]
}

/** pandas' rolling mean at bar i from the window's running state (a window of one is the value itself). */
function windowMean(i: number, n: number, sum: number, nobs: number, negatives: number, sameRun: number, last: number): number {
  if (i < n - 1 || nobs < n) return NaN
  // pandas restarts the sum on every non-overlapping window, so a window of one is the value itself
  if (n === 1) return last
  const mean = sum / nobs
  if (sameRun >= nobs) return last
  if (negatives === 0 && mean < 0) return 0
  if (negatives === nobs && mean > 0) return 0
  return mean
}

/** Exponential moving average, α = 2/(n+1), seeded with the SMA of the first n values (bar n−1); NaN before. */
export function ema(values: Float64Array, n: number): Float64Array {
  assertPeriod(n)
  const len = values.length
  const out = new Float64Array(len).fill(NaN)
  const alpha = 2 / (n + 1)
  let start = firstFinite(values)
  if (start < 0 || start + n > len) return out
  let seed = 0
  for (let i = start; i < start + n; i++) seed += values[i]!
  let e = seed / n
  out[start + n - 1] = e
  for (let i = start + n; i < len; i++) {
    e += alpha * (values[i]! - e)
    out[i] = e
  }
  return out
}

/**
 * Relative strength index with Wilder's smoothing: the first average gain/loss is the plain mean of the first n
 * changes, then avg = (avg × (n−1) + x) / n. Defined from bar n; 100 when there were no losses.
 */
export function rsi(close: Float64Array, n: number): Float64Array {
  assertPeriod(n)
  const len = close.length
  const out = new Float64Array(len).fill(NaN)
  if (len <= n) return out
  let gain = 0
  let loss = 0
  for (let i = 1; i <= n; i++) {
    const d = close[i]! - close[i - 1]!
    if (d > 0) gain += d
    else loss -= d
  }
  gain /= n
  loss /= n
  out[n] = rsiOf(gain, loss)
  for (let i = n + 1; i < len; i++) {
    const d = close[i]! - close[i - 1]!
    gain = (gain * (n - 1) + (d > 0 ? d : 0)) / n
    loss = (loss * (n - 1) + (d < 0 ? -d : 0)) / n
    out[i] = rsiOf(gain, loss)
  }
  return out
}

function rsiOf(gain: number, loss: number): number {
  if (loss === 0) return gain === 0 ? 50 : 100
  return 100 - 100 / (1 + gain / loss)
}

/** Average true range, Wilder-smoothed; true range of bar 0 is high − low; defined from bar n−1. */
export function atr(high: Float64Array, low: Float64Array, close: Float64Array, n: number): Float64Array {
  assertPeriod(n)
  const len = close.length
  const out = new Float64Array(len).fill(NaN)
  if (len < n) return out
  let sum = 0
  let avg = 0
  for (let i = 0; i < len; i++) {
    const tr = i === 0
      ? high[0]! - low[0]!
      : Math.max(high[i]! - low[i]!, Math.abs(high[i]! - close[i - 1]!), Math.abs(low[i]! - close[i - 1]!))
    if (i < n) {
      sum += tr
      if (i === n - 1) {
        avg = sum / n
        out[i] = avg
      }
    } else {
      avg = (avg * (n - 1) + tr) / n
      out[i] = avg
    }
  }
  return out
}

/** Bollinger bands: SMA(n) ± k × the population standard deviation of the same n values. */
export function bollinger(close: Float64Array, n: number, k: number): Bands {
  assertPeriod(n)
  const len = close.length
  const middle = sma(close, n)
  const upper = new Float64Array(len).fill(NaN)
  const lower = new Float64Array(len).fill(NaN)
  for (let i = n - 1; i < len; i++) {
    const m = middle[i]!
    if (m !== m) continue
    let ss = 0
    for (let j = i - n + 1; j <= i; j++) {
      const d = close[j]! - m
      ss += d * d
    }
    const sd = Math.sqrt(ss / n)
    upper[i] = m + k * sd
    lower[i] = m - k * sd
  }
  return { middle, upper, lower }
}

/** Donchian channel: highest high and lowest low of the last n bars (this bar included), and their midpoint. */
export function donchian(high: Float64Array, low: Float64Array, n: number): Bands {
  assertPeriod(n)
  const len = high.length
  const upper = rollingExtreme(high, n, true)
  const lower = rollingExtreme(low, n, false)
  const middle = new Float64Array(len)
  for (let i = 0; i < len; i++) middle[i] = (upper[i]! + lower[i]!) / 2
  return { upper, lower, middle }
}

/** Rolling max (or min) over n values with a monotonic deque: O(len). */
function rollingExtreme(values: Float64Array, n: number, isMax: boolean): Float64Array {
  const len = values.length
  const out = new Float64Array(len).fill(NaN)
  const deque = new Int32Array(len)
  let head = 0
  let tail = 0
  for (let i = 0; i < len; i++) {
    const v = values[i]!
    while (tail > head && (isMax ? values[deque[tail - 1]!]! <= v : values[deque[tail - 1]!]! >= v)) tail--
    deque[tail++] = i
    if (deque[head]! <= i - n) head++
    if (i >= n - 1) out[i] = values[deque[head]!]!
  }
  return out
}

/** MACD: EMA(fast) − EMA(slow); signal = EMA(signal) of that line; histogram = macd − signal. */
export function macd(close: Float64Array, fast: number, slow: number, signal: number): MacdLines {
  assertPeriod(fast); assertPeriod(slow); assertPeriod(signal)
  const len = close.length
  const f = ema(close, fast)
  const s = ema(close, slow)
  const line = new Float64Array(len)
  for (let i = 0; i < len; i++) line[i] = f[i]! - s[i]!
  const sig = ema(line, signal)
  const histogram = new Float64Array(len)
  for (let i = 0; i < len; i++) histogram[i] = line[i]! - sig[i]!
  return { macd: line, signal: sig, histogram }
}

function firstFinite(values: Float64Array): number {
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i]!)) return i
  return -1
}
