import { describe, expect, it } from 'vitest'
import { tradeBands } from './trade-bands.js'

describe('Monte Carlo bands on trades', () => {
  it('with one trade return every path is the same compounding: all bands equal the exact curve', () => {
    const bands = tradeBands([0.1, 0.1, 0.1], 1000, 50, 7)
    expect(bands.bands.map((b) => b.step)).toEqual([0, 1, 2, 3])
    for (const b of bands.bands) {
      const exact = 1000 * 1.1 ** b.step
      expect([b.p5, b.p50, b.p95].map((v) => Math.round(v * 1e6) / 1e6)).toEqual([exact, exact, exact].map((v) => Math.round(v * 1e6) / 1e6))
    }
    expect(bands.probability_of_loss).toBe(0)
  })
  it('orders its percentiles, is reproducible by seed, and a symmetric ±10 % trade loses about as often as it wins', () => {
    const returns = Array.from({ length: 40 }, (_v, i) => (i % 2 ? 0.1 : -0.1))
    const a = tradeBands(returns, 10_000, 2000, 1)
    expect(tradeBands(returns, 10_000, 2000, 1)).toEqual(a)
    for (const b of a.bands) expect(b.p5 <= b.p25 && b.p25 <= b.p50 && b.p50 <= b.p75 && b.p75 <= b.p95).toBe(true)
    // (1.1 × 0.9) < 1: more paths end below the start than above it.
    expect(a.probability_of_loss).toBeGreaterThan(0.5)
    expect(a.final_equity.p50).toBeLessThan(10_000)
    expect(() => tradeBands([], 1, 1, 1)).toThrow(RangeError)
  })
})
