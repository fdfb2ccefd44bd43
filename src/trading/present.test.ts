import { describe, expect, it } from 'vitest'
import { downsample, finite } from './present.js'

describe('downsample', () => {
  const n = 10_000
  const ts = Float64Array.from({ length: n }, (_, i) => i * 1000)
  const values = Float64Array.from({ length: n }, (_, i) => 100 + Math.sin(i / 50) * 10 + (i === 4321 ? -60 : 0))

  it('keeps at most the asked points, the first and last, and the extremes', () => {
    const out = downsample(ts, values, 200)
    expect(out.length).toBeLessThanOrEqual(200)
    expect(out[0]).toEqual([0, values[0]])
    expect(out.at(-1)).toEqual([ts[n - 1], values[n - 1]])
    expect(out.some(([t]) => t === 4321 * 1000)).toBe(true) // the spike survives
    for (let i = 1; i < out.length; i++) expect(out[i]![0]).toBeGreaterThan(out[i - 1]![0])
  })

  it('returns the series unchanged when it is short enough', () => {
    expect(downsample(ts.subarray(0, 5), values.subarray(0, 5), 10)).toHaveLength(5)
  })
})

describe('finite', () => {
  it('turns non-finite numbers into null at any depth and leaves the rest', () => {
    expect(finite({ a: NaN, b: [1, Infinity], c: { d: -Infinity, e: 'x', f: null } })).toEqual({ a: null, b: [1, null], c: { d: null, e: 'x', f: null } })
  })
})
