// The probability of backtest overfitting by combinatorially symmetric cross-validation (Bailey, Borwein, López de
// Prado, Zhu, "The Probability of Backtest Overfitting", 2015), with the Sharpe ratio as the performance measure.
//
// The T×N matrix of the trials' per-bar returns is split into S blocks of equal length; every combination of S/2
// blocks is an in-sample set and the other half its out-of-sample set. For each, the trial with the best in-sample
// Sharpe is found, its out-of-sample Sharpe ranked among all trials' (ω = rank / (N + 1)), and λ = ln(ω / (1 − ω)).
// PBO is the share of combinations with λ ≤ 0: how often the in-sample winner is at or below the out-of-sample median.
// A Sharpe over a union of blocks needs only each block's count, sum and sum of squares, so a trial is stored as
// those 3·S numbers — the exact sufficient statistics of the matrix for this measure.
import { deflatedSharpeRatio, type DeflatedSharpe } from './deflated-sharpe.js'

export interface Pbo {
  /** Share of combinations whose in-sample best ranks at or below the out-of-sample median; null with fewer than 2 trials. */
  pbo: number | null
  blocks: number
  combinations: number
  trials: number
  /** Rows (bars) per block; the first rows of the matrix beyond a multiple of `blocks` are left out. */
  block_rows: number
  /** Quantiles of the logits λ over the combinations (null without combinations). */
  logits: { p5: number; p50: number; p95: number } | null
}

/** r[i] = equity[i] / equity[i − 1] − 1 into `out` (r[0] = 0; 0 after a wipe-out or an unchanged bar). */
export function barReturns(equity: Float64Array, out: Float64Array): Float64Array {
  out[0] = 0
  let prev = equity[0]!
  for (let i = 1; i < equity.length; i++) {
    const e = equity[i]!
    out[i] = prev > 0 && e !== prev ? e / prev - 1 : 0
    prev = e
  }
  return out
}

/** The verdict of a search from its stored trial blocks and its best trial's per-bar returns: DSR with every trial counted, and PBO. */
export function searchOverfitting(trialBlocks: Float64Array, blocks: number, bestReturns: ArrayLike<number> | null) {
  const width = 3 * blocks
  const trials = blocks ? trialBlocks.length / width : 0
  const perTrial = Array.from({ length: trials }, (_v, k) => trialBlocks.subarray(k * width, (k + 1) * width))
  const pbo = pboFromBlocks(perTrial, blocks)
  const sharpes = perTrial.map((m) => {
    let c = 0, s = 0, q = 0
    for (let b = 0; b < blocks; b++) { c += m[3 * b]!; s += m[3 * b + 1]!; q += m[3 * b + 2]! }
    const sharpe = sharpeOf(c, s, q)
    return Number.isFinite(sharpe) ? sharpe : NaN
  })
  let dsr: DeflatedSharpe | null = null
  if (bestReturns && bestReturns.length > 1) {
    let sum = 0, squares = 0
    for (let i = 0; i < bestReturns.length; i++) { sum += bestReturns[i]!; squares += bestReturns[i]! ** 2 }
    const sharpe = sharpeOf(bestReturns.length, sum, squares)
    if (Number.isFinite(sharpe)) dsr = deflatedSharpeRatio({ sharpe, trialSharpes: sharpes, trials, returns: bestReturns })
  }
  return { trials, deflated_sharpe: dsr?.dsr ?? null, pbo: pbo.pbo, pbo_detail: pbo, deflated_sharpe_detail: dsr }
}

/** The largest C(S, S/2) × trials worked through; S is lowered (from 16) to stay under it. */
export const PBO_MAX_WORK = 4_000_000
export const PBO_DEFAULT_BLOCKS = 16

/** Blocks for `trials` over `rows` rows: 16 at most, even, at least 2 rows a block, C(S, S/2) × trials ≤ PBO_MAX_WORK. */
export function pboBlocks(rows: number, trials: number): number {
  for (let s = PBO_DEFAULT_BLOCKS; s >= 2; s -= 2) {
    if (rows / s >= 2 && binomial(s, s / 2) * Math.max(1, trials) <= PBO_MAX_WORK) return s
  }
  return 0
}

/** (count, sum, sum of squares) of `returns[from, to)` in `blocks` equal blocks (the first remainder rows left out). */
export function blockMoments(returns: ArrayLike<number>, from: number, to: number, blocks: number): Float64Array {
  const out = new Float64Array(3 * blocks)
  if (blocks === 0) return out
  const size = Math.floor((to - from) / blocks)
  const start = to - size * blocks
  for (let b = 0; b < blocks; b++) {
    let sum = 0
    let squares = 0
    for (let i = start + b * size; i < start + (b + 1) * size; i++) {
      const x = returns[i]!
      sum += x
      squares += x * x
    }
    out[3 * b] = size
    out[3 * b + 1] = sum
    out[3 * b + 2] = squares
  }
  return out
}

/** PBO from each trial's block moments (blockMoments with the same `blocks`). */
export function pboFromBlocks(trials: readonly Float64Array[], blocks: number): Pbo {
  const n = trials.length
  const base = { blocks, trials: n, block_rows: n && blocks ? trials[0]![0]! : 0 }
  if (n < 2 || blocks < 2) return { pbo: null, combinations: 0, logits: null, ...base }
  const half = blocks / 2
  const totals = trials.map((m) => {
    const t = [0, 0, 0]
    for (let b = 0; b < blocks; b++) for (let k = 0; k < 3; k++) t[k]! += m[3 * b + k]!
    return t as [number, number, number]
  })
  const logits: number[] = []
  const inSample = new Float64Array(n)
  const outOfSample = new Float64Array(n)
  for (const chosen of combinations(blocks, half)) {
    for (let j = 0; j < n; j++) {
      const m = trials[j]!
      let c = 0, s = 0, q = 0
      for (const b of chosen) {
        c += m[3 * b]!
        s += m[3 * b + 1]!
        q += m[3 * b + 2]!
      }
      const [tc, ts, tq] = totals[j]!
      inSample[j] = sharpeOf(c, s, q)
      outOfSample[j] = sharpeOf(tc - c, ts - s, tq - q)
    }
    let best = 0
    for (let j = 1; j < n; j++) if (inSample[j]! > inSample[best]!) best = j
    const omega = relativeRank(outOfSample, best) / (n + 1)
    logits.push(Math.log(omega / (1 - omega)))
  }
  const sorted = [...logits].sort((a, b) => a - b)
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1) + 0.5))]!
  return {
    pbo: logits.filter((l) => l <= 0).length / logits.length,
    combinations: logits.length,
    logits: { p5: q(0.05), p50: q(0.5), p95: q(0.95) },
    ...base,
  }
}

/** PBO of a T×N matrix given as rows (each row one period, one value per trial). */
export function pboOfMatrix(rows: readonly (readonly number[])[], blocks: number): Pbo {
  const trials = rows[0]?.length ?? 0
  const columns = Array.from({ length: trials }, (_v, j) => rows.map((row) => row[j]!))
  return pboFromBlocks(columns.map((c) => blockMoments(c, 0, c.length, blocks)), blocks)
}

/** Mean over sample standard deviation; −Infinity when undefined (flat or too short), so it ranks last. */
function sharpeOf(count: number, sum: number, squares: number): number {
  if (count < 2) return -Infinity
  const mean = sum / count
  const variance = (squares - count * mean * mean) / (count - 1)
  return variance > 1e-30 ? mean / Math.sqrt(variance) : -Infinity
}

/** 1-based rank of values[k] among values, ties sharing their average rank. */
function relativeRank(values: Float64Array, k: number): number {
  const v = values[k]!
  let below = 0
  let equal = 0
  for (let j = 0; j < values.length; j++) {
    if (values[j]! < v) below++
    else if (values[j] === v) equal++
  }
  return below + (equal + 1) / 2
}

/** Every k-subset of 0..n-1 in lexicographic order. */
export function* combinations(n: number, k: number): Generator<number[]> {
  const c = Array.from({ length: k }, (_v, i) => i)
  for (;;) {
    yield [...c]
    let i = k - 1
    while (i >= 0 && c[i] === n - k + i) i--
    if (i < 0) return
    c[i]!++
    for (let j = i + 1; j < k; j++) c[j] = c[j - 1]! + 1
  }
}

function binomial(n: number, k: number): number {
  let r = 1
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i
  return Math.round(r)
}
