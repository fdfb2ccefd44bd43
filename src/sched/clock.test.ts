import { describe, expect, it } from 'vitest'
import { isoAt } from './clock.js'

describe('isoAt', () => {
  it('is toISOString of the instant, for the same instant twice and for the next one', () => {
    const t = Date.parse('2026-11-24T05:40:00.123Z')
    expect(isoAt(t)).toBe('2026-11-24T05:40:00.123Z')
    expect(isoAt(t)).toBe('2026-11-24T05:40:00.123Z')
    expect(isoAt(t + 1)).toBe('2026-11-24T05:40:00.124Z')
    expect(isoAt(t)).toBe('2026-11-24T05:40:00.123Z')
  })

  it('throws like toISOString on an invalid instant, and remembers nothing from it', () => {
    expect(() => isoAt(Number.NaN)).toThrow(RangeError)
    expect(isoAt(0)).toBe('1970-01-01T00:00:00.000Z')
  })
})
