import { describe, expect, it } from 'vitest'
import { num } from './page-format.js'

describe('num', () => {
  it('formats as toLocaleString with the same options, through a formatter kept per digit count', () => {
    const values = [0, -0, 1, -1.005, 1234567.891, 0.000123, 1e21, -987654.3219, 2.5, 3.5, Number.MAX_SAFE_INTEGER]
    for (const digits of [0, 1, 2, 4]) {
      for (const value of values) {
        expect(num(value, digits)).toBe(value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }))
      }
    }
    expect(num(Number.NaN)).toBe('—')
    expect(num('1')).toBe('—')
  })
})
