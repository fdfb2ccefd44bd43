import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { turnsDuring } from '../store/test-turns.js'
import { createJsonWriter, jsonParts, jsonTextInTurns, PART_CHARS, STRING_SLICE, stringifyDeep } from './json-writer.js'

// A lone half of a surrogate pair (String.prototype.isWellFormed is past this project's ES2023 lib).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const wellFormed = (text: string): boolean => !LONE_SURROGATE.test(text)

/** Every part of the writer's text for a value, at most maxChars each. */
function partsOf(value: unknown, maxChars: number): string[] {
  const writer = createJsonWriter(value)
  const parts: string[] = []
  while (!writer.done) parts.push(writer.next(maxChars))
  return parts
}

async function collect(value: unknown): Promise<string[]> {
  const parts: string[] = []
  for await (const part of jsonParts(value)) parts.push(part)
  return parts
}

describe('stringifyDeep', () => {
  it('writes what JSON.stringify writes for plain data', () => {
    const samples = [
      null, 1, 'a"b', true, [], {}, [1, [2, [3]], { a: null }], { a: 1, b: undefined, c: [undefined, 'x'], d: { e: 1.5e-9 } }, { d: new Date(0) },
      { a: undefined, b: () => 1, c: Symbol('s'), d: 2, e: undefined }, { only: undefined }, { f() {}, g: 3 },
    ]
    for (const sample of samples) expect(stringifyDeep(sample)).toBe(JSON.stringify(sample))
  })

  it('writes any JSON value (lone surrogates, astral characters, control characters) as JSON.stringify does', () => {
    fc.assert(fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => stringifyDeep(value) === JSON.stringify(value)))
  })

  it('writes a value nested 100 000 deep, which JSON.parse reads back', () => {
    let deep: unknown = { var: 'x' }
    for (let i = 0; i < 100_000; i++) deep = { not: deep }
    const text = stringifyDeep(deep)
    expect(text.startsWith('{"not":{"not":')).toBe(true)
    expect(JSON.parse(text)).toBeTruthy()
  })
})

describe('the text in parts', () => {
  it('joins to JSON.stringify for any JSON value, cut at any length', () => {
    fc.assert(fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.integer({ min: 1, max: 40 }), (value, maxChars) => {
      const parts = partsOf(value, maxChars)
      expect(parts.join('')).toBe(JSON.stringify(value))
      for (const part of parts) expect(part !== '' && wellFormed(part)).toBe(true)
    }))
  })

  it('cuts long strings and keys between whole characters, wherever a surrogate pair falls', () => {
    const astral = '\u{1F600}'
    for (const at of [STRING_SLICE - 2, STRING_SLICE - 1, STRING_SLICE, 2 * STRING_SLICE - 1, 2 * STRING_SLICE]) {
      const text = 'a'.repeat(at) + astral + 'b\n"'.repeat(STRING_SLICE)
      for (const value of [text, { [text]: [text, 1] }, [{ k: text }, text]]) {
        const parts = partsOf(value, PART_CHARS)
        for (const part of parts) {
          expect(wellFormed(part)).toBe(true) // no lone half: a part is stored (and hashed) on its own
          expect(part.length).toBeLessThanOrEqual(PART_CHARS)
        }
        expect(parts.join('')).toBe(JSON.stringify(value))
        const digest = (texts: string[]) => texts.reduce((hash, t) => hash.update(t), createHash('sha256')).digest('hex')
        expect(digest(parts)).toBe(digest([JSON.stringify(value)]))
      }
    }
  })

  it('gives a small value in one part without a loop turn', async () => {
    const { value, turns } = await turnsDuring(() => collect({ dimacs: 'p cnf 1 1\n1 0\n' }))
    expect(value).toEqual([JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n' })])
    expect(turns).toBe(0)
  })

  it('lets the loop turn between the parts of a 14 MB input', async () => {
    const input = { dimacs: `${'c pad\n'.repeat(2_000_000)}p cnf 3 1\n1 2 3 0\n` }
    const { value: parts, turns } = await turnsDuring(() => collect(input))
    expect(parts.join('')).toBe(JSON.stringify(input))
    expect(parts.length).toBeGreaterThan(50)
    expect(turns).toBeGreaterThanOrEqual(parts.length - 1)
  })
})

describe('jsonTextInTurns', () => {
  it('writes a 200k-member object a part per turn, as JSON.stringify does', async () => {
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i % 3 ? i : undefined]))
    const { value, turns } = await turnsDuring(() => jsonTextInTurns(wide, 64 * 1024))
    expect(value).toBe(JSON.stringify(wide))
    expect(turns).toBeGreaterThanOrEqual(Math.floor(value.length / (64 * 1024)))
  })
})
