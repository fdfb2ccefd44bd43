import { describe, expect, it } from 'vitest'
import { downsample, downsampleIndices } from './downsample.js'

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

  it('keeps each bucket\'s lowest and highest point, in time order', () => {
    const kept = downsampleIndices(values, 102) // 50 buckets of the 9,998 inner points
    const inner = n - 2
    for (let b = 0; b < 50; b++) {
      const from = 1 + Math.floor((b * inner) / 50)
      const to = 1 + Math.floor(((b + 1) * inner) / 50)
      const bucket = values.subarray(from, to)
      const inBucket = Array.from(kept).filter((i) => i >= from && i < to).map((i) => values[i]!)
      expect(inBucket).toContain(Math.min(...bucket))
      expect(inBucket).toContain(Math.max(...bucket))
    }
  })
})
