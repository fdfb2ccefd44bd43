// Indicator definitions against plain re-computations and small known cases.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { atr, bollinger, donchian, ema, macd, rsi, sma, smaPair } from './indicators.js'

const series = (min: number, max: number) =>
  fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { minLength: min, maxLength: max }).map((a) => Float64Array.from(a))

describe('indicators', () => {
  it('sma equals the plain window mean, NaN for the first n−1 bars', () => {
    fc.assert(fc.property(series(1, 80), fc.integer({ min: 1, max: 20 }), (x, n) => {
      const out = sma(x, n)
      for (let i = 0; i < x.length; i++) {
        if (i < n - 1) expect(out[i]).toBeNaN()
        else {
          let s = 0
          for (let j = i - n + 1; j <= i; j++) s += x[j]!
          expect(Math.abs(out[i]! - s / n)).toBeLessThanOrEqual(1e-12 * (s / n))
        }
      }
    }))
  })

  it('sma of a window of equal values is exactly that value (as pandas returns it)', () => {
    const x = Float64Array.from([0.1, 0.7, 0.3, 0.3, 0.3, 0.3])
    expect(sma(x, 4)[5]).toBe(0.3)
  })

  it('smaPair gives each window exactly what sma gives it alone, with gaps, signs and runs of equal values', () => {
    const value = fc.oneof(fc.double({ min: -1000, max: 1000 }), fc.constantFrom(NaN, 0, -0, 0.3, -2.5))
    const withGaps = fc.array(value, { maxLength: 60 }).map((a) => Float64Array.from(a))
    fc.assert(fc.property(withGaps, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), (x, n1, n2) => {
      const [a, b] = smaPair(x, n1, n2)
      expect(Array.from(a)).toEqual(Array.from(sma(x, n1)))
      expect(Array.from(b)).toEqual(Array.from(sma(x, n2)))
    }))
  })

  it('ema starts at the SMA of the first n values and follows α = 2/(n+1)', () => {
    const out = ema(Float64Array.from([1, 2, 3, 4, 5]), 3)
    expect(out[1]).toBeNaN()
    expect(out[2]).toBe(2)
    expect(out[3]).toBe(2 + 0.5 * (4 - 2))
    expect(out[4]).toBe(3 + 0.5 * (5 - 3))
  })

  it('rsi is 100 on a rising series, 0 on a falling one, and always within [0, 100]', () => {
    expect(rsi(Float64Array.from([1, 2, 3, 4, 5, 6]), 3)[5]).toBe(100)
    expect(rsi(Float64Array.from([6, 5, 4, 3, 2, 1]), 3)[5]).toBe(0)
    fc.assert(fc.property(series(2, 60), fc.integer({ min: 1, max: 14 }), (x, n) => {
      const out = rsi(x, n)
      for (let i = 0; i < x.length; i++) {
        if (i < n) expect(out[i]).toBeNaN()
        else expect(out[i]! >= 0 && out[i]! <= 100).toBe(true)
      }
    }))
  })

  it('atr: Wilder average of true ranges', () => {
    const high = Float64Array.from([10, 12, 13, 12])
    const low = Float64Array.from([8, 9, 11, 10])
    const close = Float64Array.from([9, 11, 12, 11])
    const out = atr(high, low, close, 2)
    // true ranges: 2, max(3, |12−9|, |9−9|) = 3, max(2, 2, 0) = 2, max(2, 0, 2) = 2
    expect(out[0]).toBeNaN()
    expect(out[1]).toBe(2.5)
    expect(out[2]).toBe((2.5 + 2) / 2)
    expect(out[3]).toBe((2.25 + 2) / 2)
  })

  it('bollinger bands sit k population standard deviations around the SMA', () => {
    const x = Float64Array.from([1, 2, 3, 4])
    const { middle, upper, lower } = bollinger(x, 4, 2)
    const sd = Math.sqrt(((1.5 ** 2) * 2 + (0.5 ** 2) * 2) / 4)
    expect(middle[3]).toBe(2.5)
    expect(upper[3]).toBeCloseTo(2.5 + 2 * sd, 12)
    expect(lower[3]).toBeCloseTo(2.5 - 2 * sd, 12)
  })

  it('donchian equals the plain rolling max of highs and min of lows', () => {
    fc.assert(fc.property(series(1, 80), series(80, 80), fc.integer({ min: 1, max: 15 }), (h, l, n) => {
      const high = h
      const low = Float64Array.from(h, (v, i) => Math.min(v, l[i]!))
      const { upper, lower } = donchian(high, low, n)
      for (let i = n - 1; i < h.length; i++) {
        expect(upper[i]).toBe(Math.max(...high.subarray(i - n + 1, i + 1)))
        expect(lower[i]).toBe(Math.min(...low.subarray(i - n + 1, i + 1)))
      }
    }))
  })

  it('macd histogram is the macd line minus its signal line', () => {
    const x = Float64Array.from({ length: 60 }, (_, i) => 100 + Math.sin(i / 4) * 5)
    const { macd: line, signal, histogram } = macd(x, 5, 12, 4)
    expect(line[10]).toBeNaN()
    for (let i = 15; i < 60; i++) expect(histogram[i]).toBe(line[i]! - signal[i]!)
  })
})
