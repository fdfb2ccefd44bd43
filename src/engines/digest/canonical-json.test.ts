import { describe, expect, it } from 'vitest'
import { canonicalJson, canonicalPretty, jsonDepth, NotJsonError } from './canonical-json.js'

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const input = JSON.parse('{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}')
    const keys = Object.keys(JSON.parse(canonicalJson(input)))
    // Integer-like keys print first in JS objects; compare the serialised order instead.
    const order = [...canonicalJson(input).matchAll(/"([^"]*)":/g)].map((m) => JSON.parse(`"${m[1]}"`) as string)
    expect(order).toEqual(['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'])
    expect(keys).toHaveLength(7)
  })

  it('prints numbers as ECMAScript does (RFC 8785 §3.2.2.3 examples)', () => {
    expect(canonicalJson([333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0, 1e21, 1e-7])).toBe(
      '[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21,1e-7]',
    )
  })

  it('has no whitespace and escapes strings minimally', () => {
    expect(canonicalJson({ b: [true, null, 'é\n"\u0001'], a: {} })).toBe('{"a":{},"b":[true,null,"é\\n\\"\\u0001"]}')
  })

  it('gives equal values the same text regardless of key order', () => {
    expect(canonicalJson({ x: 1, y: { b: 2, a: 1 } })).toBe(canonicalJson({ y: { a: 1, b: 2 }, x: 1 }))
  })

  it('refuses what JSON cannot hold', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(NotJsonError)
    expect(() => canonicalJson({ f: () => 1 })).toThrow(NotJsonError)
  })

  it('pretty-prints with sorted keys', () => {
    expect(canonicalPretty({ b: 1, a: [1] })).toBe('{\n  "a": [\n    1\n  ],\n  "b": 1\n}\n')
  })

  it('measures depth without recursion', () => {
    expect(jsonDepth(1)).toBe(0)
    expect(jsonDepth({ a: [1, { b: [] }] })).toBe(4)
    let deep: unknown = 0
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(jsonDepth(deep, 1000)).toBe(1001)
  })
})
