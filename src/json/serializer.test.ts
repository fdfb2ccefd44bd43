// The one answer serializer's helpers: an answer spliced around members written elsewhere is the whole answer's
// serializer text.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { serializerOf, splicedAnswer } from './serializer.js'
import { JsonBytes } from './bytes.js'

const astral = '😀'

describe('splicedAnswer', () => {
  const schema = z.object({ a: z.number(), text: z.string(), list: z.array(z.number()).nullable(), tail: z.string().optional() })

  it('is the serializer\'s text of the whole, members in the schema\'s order whatever the value\'s', async () => {
    const whole = { tail: 'end"', list: [1, 2.5], text: `long ${astral} "text"`, a: 1 }
    const spliced = splicedAnswer(schema, { tail: whole.tail, a: 1, text: '', list: null }, {
      text: JsonBytes.of(JSON.stringify(whole.text)),
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
