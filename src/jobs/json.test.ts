import { describe, expect, it } from 'vitest'
import { stringifyDeep } from './json.js'

describe('stringifyDeep', () => {
  it('writes what JSON.stringify writes for plain data', () => {
    const samples = [null, 1, 'a"b', true, [], {}, [1, [2, [3]], { a: null }], { a: 1, b: undefined, c: [undefined, 'x'], d: { e: 1.5e-9 } }]
    for (const sample of samples) expect(stringifyDeep(sample)).toBe(JSON.stringify(sample))
  })

  it('writes a value nested 100 000 deep, which JSON.parse reads back', () => {
    let deep: unknown = { var: 'x' }
    for (let i = 0; i < 100_000; i++) deep = { not: deep }
    const text = stringifyDeep(deep)
    expect(text.startsWith('{"not":{"not":')).toBe(true)
    expect(JSON.parse(text)).toBeTruthy()
  })
})
