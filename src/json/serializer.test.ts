// The one answer serializer's helpers: a long string escaped a slice per turn is JSON.stringify's text, and an answer
// spliced around members written elsewhere is the whole answer's serializer text.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { serializerOf, splicedAnswer, stringBytes } from './serializer.js'
import { turnsDuring } from '../store/test-turns.js'

const SLICE = 256 * 1024
const astral = '😀'

describe('stringBytes', () => {
  it('writes what JSON.stringify writes, with a pair, a lone half or an escape at every slice edge', async () => {
    for (const at of [SLICE - 2, SLICE - 1, SLICE, 2 * SLICE - 1]) {
      for (const odd of [astral, '\ud800', '"\\\n\u2028\u0000', 'é']) {
        const text = 'a'.repeat(at) + odd + 'b"'.repeat(SLICE / 2)
        expect((await stringBytes(text)).text()).toBe(JSON.stringify(text))
      }
    }
    expect((await stringBytes('')).text()).toBe('""')
  })

  it('turns the loop between slices', async () => {
    const { value, turns } = await turnsDuring(() => stringBytes('x'.repeat(4 * SLICE)))
    expect(value.byteLength).toBe(4 * SLICE + 2)
    expect(turns).toBeGreaterThanOrEqual(3)
  })
})

describe('splicedAnswer', () => {
  const schema = z.object({ a: z.number(), text: z.string(), list: z.array(z.number()).nullable(), tail: z.string().optional() })

  it('is the serializer\'s text of the whole, members in the schema\'s order whatever the value\'s', async () => {
    const whole = { tail: 'end"', list: [1, 2.5], text: `long ${astral} "text"`, a: 1 }
    const spliced = splicedAnswer(schema, { tail: whole.tail, a: 1, text: '', list: null }, {
      text: await stringBytes(whole.text),
      list: Buffer.from(serializerOf(schema.shape.list)(whole.list)),
    })
    expect(spliced.text()).toBe(serializerOf(schema)(whole))
    // A member not written elsewhere (null) is the value's own.
    expect(splicedAnswer(schema, { a: 2, text: 't', list: null }, { list: null }).text()).toBe(serializerOf(schema)({ a: 2, text: 't', list: null }))
  })

  it('refuses a member the schema does not declare', () => {
    expect(() => splicedAnswer(schema, { a: 1, text: '' }, { nope: Buffer.from('1') })).toThrow(/no member nope/)
  })
})
