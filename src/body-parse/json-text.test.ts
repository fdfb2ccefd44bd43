// The pre-parse scan of JSON text: strings are skipped whole (escaped quotes and backslash runs included), so only
// structure outside strings counts toward depth and values.
import { describe, expect, it } from 'vitest'
import { scanJsonText } from './json-text.js'

const scan = (text: string) => scanJsonText(text, 1_000, 1_000)

describe('scanJsonText', () => {
  it('counts depth and values outside strings only', () => {
    // Object members count OBJECT_MEMBER_VALUES (4) each: the outer member, then [ 1 , 1 , 1, then the inner member.
    expect(scan('{"a":[1,2,{"b":3}]}')).toEqual({ depth: 3, values: 4 + 3 + 4 })
    expect(scan('{"a":"[[[,,,{{{"}')).toEqual({ depth: 1, values: 4 })
    expect(scan('[[1,2,3],{"a":1,"b":[4,5]}]')).toEqual({ depth: 3, values: 1 + 3 + 1 + 4 * 2 + 2 })
  })

  it('ends a string at a quote behind an even run of backslashes, not at an escaped one', () => {
    expect(scan(String.raw`{"a":"x\"[[[","b":[1]}`)).toEqual({ depth: 2, values: 9 })
    expect(scan(String.raw`{"a":"x\\","b":[1]}`)).toEqual({ depth: 2, values: 9 })
    expect(scan(String.raw`{"a":"x\\\"[","b":[1]}`)).toEqual({ depth: 2, values: 9 })
    expect(scan(String.raw`["\\\\",[`)).toEqual({ depth: 2, values: 3 })
  })

  it('agrees with JSON.parse on the depth of random nested documents', () => {
    for (let seed = 1; seed <= 200; seed++) {
      let x = seed
      const rand = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648)
      const build = (d: number): unknown => {
        if (d === 0 || rand() < 0.3) return rand() < 0.5 ? 'q"\\'.repeat(Math.floor(rand() * 3)) : 1
        return rand() < 0.5 ? [build(d - 1), build(d - 1)] : { k: build(d - 1), 'e\\"': build(d - 1) }
      }
      const value = build(8)
      const depthOf = (v: unknown): number =>
        v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depthOf)) : 0
      expect(scan(JSON.stringify(value)).depth).toBe(depthOf(value))
    }
  })

  it('treats an unterminated string as running to the end', () => {
    expect(scan('["abc')).toEqual({ depth: 1, values: 1 })
  })
})
