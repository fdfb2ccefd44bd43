// A value's JSON text written in loop turns is JSON.stringify's text of it, whatever its shape.
import { describe, expect, it } from 'vitest'
import { turnsDuring } from '../store/test-turns.js'
import { nextTurn } from '../store/turns.js'
import { jsonTextInTurns } from './json-turns.js'

describe('jsonTextInTurns', () => {
  it.each([
    ['scalars', [null, true, false, 0, -1.5e-7, 1e21, '', 'a"b\\c\n\u0001', '\ud800 lone', 'é😀']],
    ['nesting', { a: [[], {}, [{ b: { c: [1, [2, [3]]] } }]], '': null, '0': 'zero', 'k"ey': 'v' }],
    ['a long string with a surrogate pair at each slice edge', 'x'.repeat(65_535) + '😀'.repeat(70_000) + '\u0000'],
    ['a long key', { ['k'.repeat(100_000)]: 'é'.repeat(100_000) }],
  ])('%s', async (_name, value) => {
    expect(await jsonTextInTurns(value, nextTurn, 3)).toBe(JSON.stringify(value))
  })

  it('writes a value 5,000 levels deep without recursion', async () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 5_000; i++) deep = i % 2 ? [deep] : { d: deep }
    const text = await jsonTextInTurns(deep, nextTurn)
    expect(text.startsWith('[{"d":[{"d":')).toBe(true)
    expect(text.length).toBe(2_500 * ('[]'.length + '{"d":}'.length) + '"leaf"'.length)
  })

  it('lets the loop turn every stepsPerTurn steps (a member, an item or a string slice each)', async () => {
    const wide = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, i]))
    const { value, turns } = await turnsDuring(() => jsonTextInTurns(wide, nextTurn, 100))
    expect(value).toBe(JSON.stringify(wide))
    // 1,000 members and the closing brace, 100 steps a turn.
    expect(turns).toBeGreaterThanOrEqual(10)
  })
})
