// PBO checked against answers known by construction and against a brute-force CSCV written here from the paper's
// definition (rows concatenated, Sharpe from the raw values, ranks counted by hand).
import { describe, expect, it } from 'vitest'
import { blockMoments, combinations, pboBlocks, pboFromBlocks, pboOfMatrix } from './overfitting.js'
import { createRng } from './prng.js'

/** A column of T standard-normal-ish draws (sum of uniforms), reproducible by seed. */
function noise(seed: number, t: number): number[] {
  const rng = createRng(seed)
  return Array.from({ length: t }, () => (rng.next() + rng.next() + rng.next() - 1.5) * 0.01)
}

/** The paper's CSCV, brute force: rows of each half joined, Sharpe of the joined values, the IS best's OOS rank. */
function bruteForcePbo(matrix: number[][], s: number): number {
  const t = matrix.length
  const size = Math.floor(t / s)
  const start = t - size * s
  const blockRows = (b: number) => matrix.slice(start + b * size, start + (b + 1) * size)
  const sharpe = (xs: number[]) => {
    const mean = xs.reduce((a, x) => a + x, 0) / xs.length
    const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1))
    return sd > 0 ? mean / sd : -Infinity
  }
  const n = matrix[0]!.length
  let overfit = 0
  let total = 0
  const all = Array.from({ length: s }, (_v, b) => b)
  for (const inSample of combinations(s, s / 2)) {
    const outSample = all.filter((b) => !inSample.includes(b))
    const perf = (blocks: number[]) => Array.from({ length: n }, (_v, j) => sharpe(blocks.flatMap((b) => blockRows(b).map((row) => row[j]!))))
    const is = perf(inSample)
    const oos = perf(outSample)
    const best = is.indexOf(Math.max(...is))
    const rank = oos.filter((x) => x < oos[best]!).length + (oos.filter((x) => x === oos[best]!).length + 1) / 2
    const omega = rank / (n + 1)
    if (Math.log(omega / (1 - omega)) <= 0) overfit++
    total++
  }
  return overfit / total
}

describe('probability of backtest overfitting (CSCV)', () => {
  it('is 0 when one strategy beats the others in every block', () => {
    const t = 160
    const cols = [0, 1, 2, 3, 4].map((j) => noise(10 + j, t))
    const dominant = noise(99, t).map((x) => 0.02 + x * 0.1)
    const matrix = Array.from({ length: t }, (_v, i) => [dominant[i]!, ...cols.map((c) => c[i]!)])
    const result = pboOfMatrix(matrix, 16)
    expect(result).toMatchObject({ pbo: 0, blocks: 16, combinations: 12_870, trials: 6, block_rows: 10 })
    expect(result.logits!.p5).toBeGreaterThan(0)
  })

  it('is near one half for strategies that are the same noise (averaged over independent matrices)', () => {
    const t = 400
    const values: number[] = []
    for (let m = 0; m < 12; m++) {
      const cols = Array.from({ length: 20 }, (_v, j) => noise(1000 * (m + 1) + j, t))
      values.push(pboOfMatrix(Array.from({ length: t }, (_v, i) => cols.map((c) => c[i]!)), 10).pbo!)
    }
    const mean = values.reduce((a, x) => a + x, 0) / values.length
    expect(mean).toBeGreaterThan(0.35)
    expect(mean).toBeLessThan(0.65)
  })

  it('equals a brute-force enumeration of the S = 4 and S = 6 cases', () => {
    const t = 24
    const cols = Array.from({ length: 4 }, (_v, j) => noise(7 + j, t))
    const matrix = Array.from({ length: t }, (_v, i) => cols.map((c) => c[i]!))
    expect(pboOfMatrix(matrix, 4).pbo).toBe(bruteForcePbo(matrix, 4))
    expect(pboOfMatrix(matrix, 4).combinations).toBe(6)
    expect(pboOfMatrix(matrix, 6).pbo).toBe(bruteForcePbo(matrix, 6))
  })

  it('is 1 when the in-sample winner always loses out of sample (a hand-made S = 4 case)', () => {
    // Two trials, four blocks of two rows. A is good in blocks 0 and 1, bad in 2 and 3; B the mirror image. Every
    // split that puts A's good blocks in sample picks A, which then is worst out of sample, and so on: but the splits
    // {0,2}, {0,3}, {1,2}, {1,3} mix them, so the by-hand count is over the 6 splits below.
    const good = [0.02, 0.03]
    const bad = [-0.01, -0.02]
    const a = [...good, ...good, ...bad, ...bad]
    const b = [...bad, ...bad, ...good, ...good]
    const matrix = a.map((x, i) => [x, b[i]!])
    // {0,1}: IS best A, OOS A worst → overfit. {2,3}: B, then B worst → overfit. Mixed splits: IS Sharpes of A and B
    // are equal by symmetry, the first (A) is picked, and OOS they are equal again → rank 1.5 of 2, ω = 0.5, λ = 0 →
    // counted (λ ≤ 0). So all 6 count: PBO = 1.
    expect(pboOfMatrix(matrix, 4).pbo).toBe(1)
    expect(bruteForcePbo(matrix, 4)).toBe(1)
  })

  it('chooses fewer blocks as trials grow, and none when there are too few rows', () => {
    expect(pboBlocks(2520, 100)).toBe(16)
    expect(pboBlocks(2520, 2000)).toBe(12)
    expect(pboBlocks(20, 10)).toBe(10)
    expect(pboBlocks(3, 10)).toBe(0)
    expect(pboFromBlocks([blockMoments([1, 2, 3, 4], 0, 4, 2)], 2).pbo).toBeNull()
  })
})
