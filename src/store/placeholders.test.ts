import { describe, expect, it } from 'vitest'
import { numberPlaceholders, valuesFor } from './placeholders.js'

describe('numberPlaceholders', () => {
  it('numbers ? in order', () => {
    expect(numberPlaceholders('SELECT * FROM t WHERE a = ? AND b > ?')).toEqual({ text: 'SELECT * FROM t WHERE a = $1 AND b > $2', names: null, count: 2 })
  })

  it('numbers @names by first use and reuses the number of a repeated name', () => {
    const s = numberPlaceholders('UPDATE t SET a = @a, b = @b_2 WHERE a <> @a')
    expect(s).toEqual({ text: 'UPDATE t SET a = $1, b = $2 WHERE a <> $1', names: ['a', 'b_2'], count: 2 })
    expect(valuesFor(s, { b_2: 'y', a: 'x', extra: 1 })).toEqual(['x', 'y'])
  })

  it('leaves ? and @ inside strings, quoted names and comments alone', () => {
    const text = `SELECT 'why? @me' AS "q?", 'it''s ?' -- what?\n, ? /* @not ? */ FROM t WHERE x = ?`
    expect(numberPlaceholders(text).text).toBe(`SELECT 'why? @me' AS "q?", 'it''s ?' -- what?\n, $1 /* @not ? */ FROM t WHERE x = $2`)
  })

  it('leaves operators and e-mail-like text that are not parameters', () => {
    expect(numberPlaceholders('SELECT a @> b, x@y FROM t').text).toBe('SELECT a @> b, x@y FROM t')
  })

  it('refuses a statement with both kinds, and values of the wrong kind or missing', () => {
    expect(() => numberPlaceholders('SELECT ?, @a')).toThrow(/not both/)
    const named = numberPlaceholders('SELECT @a')
    expect(() => valuesFor(named, { b: 1 })).toThrow(/missing named parameter "a"/)
    expect(() => valuesFor(named, [1])).toThrow(/positional/)
    expect(() => valuesFor(numberPlaceholders('SELECT ?'), { a: 1 })).toThrow(/named/)
  })
})
