import { describe, expect, it } from 'vitest'
import { answerMembers } from './answer-members.js'

const limits = { memberChars: 20, keptChars: 80, listed: 2 }

/** The text cut into parts of `size` characters (anywhere, as parts of a long string may be). */
const cutInto = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size))

describe('answerMembers', () => {
  const value = {
    a: 1, 'q"{k},': 'x\\"}]', long: 'y'.repeat(50), nested: { b: [1, { c: '}' }] }, big: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    last: null, more: 'z'.repeat(30),
  }
  const text = JSON.stringify(value)

  it('keeps the short top-level members as values and names the long ones with their size, however the parts are cut', () => {
    for (const size of [1, 2, 3, 7, text.length]) {
      const members = answerMembers(cutInto(text, size), limits)
      expect(members.kept).toEqual({ a: 1, 'q"{k},': 'x\\"}]', nested: { b: [1, { c: '}' }] }, last: null })
      expect(members.omitted).toEqual([
        { member: 'long', chars: JSON.stringify(value.long).length },
        { member: 'big', chars: JSON.stringify(value.big).length },
      ])
      expect(members.omittedMore).toBe(1)
    }
  })

  it('stops keeping members once their text passes keptChars in all', () => {
    const wide = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]))
    const members = answerMembers(cutInto(JSON.stringify(wide), 5), { memberChars: 20, keptChars: 24, listed: 100 })
    expect(members.kept).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3 })
    expect(members.omitted.map((m) => m.member)).toEqual(['k4', 'k5', 'k6', 'k7', 'k8', 'k9'])
  })

  it('answers an empty object as no members, and a root that is not an object as omitted whole', () => {
    expect(answerMembers(cutInto('{}', 1), limits)).toEqual({ kept: {}, omitted: [], omittedMore: 0 })
    expect(answerMembers(cutInto('[1,{"a":2}]', 4), limits)).toEqual({ kept: {}, omitted: [{ member: '', chars: 11 }], omittedMore: 0 })
  })
})
