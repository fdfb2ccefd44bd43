import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { shapeOf } from './answer-shape.js'
import { createJsonWriter, PART_CHARS, writeInTurns } from './json-writer.js'
import { zodSerializerCompiler } from './plugins/serializer.js'
import { turnsDuring } from './store/test-turns.js'
import { WrittenJson } from './written-json.js'

const serializerOf = (schema: z.ZodType) => zodSerializerCompiler({ schema, method: 'POST', url: '', httpStatus: '200' }) as (data: unknown) => string

function written(schema: z.ZodType, value: unknown, maxChars: number): string[] {
  const writer = createJsonWriter(value, shapeOf(schema))
  const parts: string[] = []
  while (!writer.done) parts.push(writer.next(maxChars))
  return parts
}

// What answers are made of: members required and optional, nullable ones, tuples, records, unions, loose objects.
const trade = z.object({ size: z.number(), entry_time: z.string(), exit_time: z.string().nullable(), bar: z.number().int(), open: z.boolean() })
const answer = z.object({
  name: z.string(),
  note: z.string().optional(),
  count: z.number().int(),
  ratio: z.number().nullable(),
  points: z.array(z.tuple([z.number(), z.number()])),
  trades: z.array(trade).optional(),
  model: z.record(z.string(), z.boolean()),
  anything: z.unknown(),
  either: z.union([z.string(), z.object({ a: z.number() })]),
  level: z.enum(['low', 'high']),
  flag: z.literal(true),
  meta: z.looseObject({ id: z.number() }),
  when: z.iso.datetime(),
  nested: z.object({ deep: z.array(z.object({ x: z.number().nullable() })) }).nullable(),
})

const text = fc.string({ unit: 'binary', maxLength: 30 })
const finite = fc.double({ noNaN: true, noDefaultInfinity: true })
const tradeValue = fc.record({ size: finite, entry_time: text, exit_time: fc.option(text, { nil: null }), bar: fc.integer(), open: fc.boolean() })
const answerValue = fc.record({
  name: text,
  note: fc.option(text, { nil: undefined }),
  count: fc.integer(),
  ratio: fc.option(finite, { nil: null }),
  points: fc.array(fc.tuple(finite, finite), { maxLength: 20 }),
  trades: fc.option(fc.array(tradeValue, { maxLength: 5 }), { nil: undefined }),
  model: fc.dictionary(text, fc.boolean(), { maxKeys: 10 }),
  anything: fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 }),
  either: fc.oneof(text, fc.record({ a: finite })),
  level: fc.constantFrom('low', 'high'),
  flag: fc.constant(true),
  meta: fc.record({ id: fc.integer(), extra: fc.jsonValue({ maxDepth: 2 }) }),
  when: fc.constant('2026-11-25T20:00:00.000Z'),
  nested: fc.option(fc.record({ deep: fc.array(fc.record({ x: fc.option(finite, { nil: null }) }), { maxLength: 4 }) }), { nil: null }),
  // Not in the schema: left out, as the serializer leaves it.
  undeclared: fc.constant('dropped'),
}, { requiredKeys: ['name', 'count', 'ratio', 'points', 'model', 'anything', 'either', 'level', 'flag', 'meta', 'when', 'nested', 'undeclared'] })

describe('an answer written through its shape', () => {
  const serialize = serializerOf(answer)

  it('is the text fast-json-stringify writes for the same schema, cut anywhere', () => {
    fc.assert(fc.property(answerValue, fc.integer({ min: 1, max: 64 }), (value, maxChars) => {
      const parts = written(answer, value, maxChars)
      expect(parts.join('')).toBe(serialize(value))
    }), { numRuns: 300 })
  })

  it('writes required members first, as the serializer does, and drops what the schema does not declare', () => {
    const schema = z.object({ a: z.number().optional(), b: z.string(), c: z.boolean().optional(), d: z.number() })
    const value = { c: true, a: 1, extra: 5, d: 2, b: 'x' }
    expect(written(schema, value, PART_CHARS).join('')).toBe(serializerOf(schema)(value))
    expect(written(schema, value, PART_CHARS).join('')).toBe('{"b":"x","d":2,"a":1,"c":true}')
  })

  it('refuses what the serializer refuses: a missing required member, NaN', () => {
    const schema = z.object({ a: z.number(), b: z.number() })
    expect(() => serializerOf(schema)({ a: 1 })).toThrow(/required/)
    expect(() => written(schema, { a: 1 }, PART_CHARS)).toThrow(/"b" is required/)
    expect(() => written(schema, { a: Number.NaN, b: 1 }, PART_CHARS)).toThrow()
  })

  it('writes a discriminated union through the branch its member names, as the serializer does', () => {
    const schema = z.discriminatedUnion('action', [
      z.object({ action: z.literal('pinned'), size: z.number(), created: z.boolean() }),
      z.object({ action: z.literal('read'), size: z.number(), content: z.string(), json: z.unknown().optional() }),
    ])
    expect(shapeOf(schema).root.kind).toBe('union')
    for (const value of [
      { action: 'pinned', created: true, size: 3 },
      { action: 'read', size: 1, content: 'x'.repeat(100), json: { a: [1] } },
      { action: 'read', content: 'y', size: 2 },
    ]) expect(written(schema, value, 11).join('')).toBe(serializerOf(schema)(value))
    // A value no branch takes is the serializer's to refuse.
    expect(() => written(schema, { action: 'other', size: 1 }, 11)).toThrow()
  })

  it('splices written text anywhere in the value as it is', () => {
    const points = [[1, 2.5], [3, -4]]
    const value = { name: 'n', count: 1, ratio: null, points: new WrittenJson(['[[1,2.5]', ',[3,-4]]']), model: {}, anything: null, either: 's',
      level: 'low', flag: true, meta: { id: 1 }, when: '2026-11-25T20:00:00.000Z', nested: null }
    expect(written(answer, value, 5).join('')).toBe(serialize({ ...value, points }))
    // Also as items of a list of flat objects whose members are all optional (which an object would satisfy).
    const loose = z.array(z.object({ a: z.number().optional() }))
    expect(written(loose, [{ a: 1 }, new WrittenJson(['{"a":2}'])], 3).join('')).toBe('[{"a":1},{"a":2}]')
  })

  it('writes a large answer a part per loop turn, each part within the part size', async () => {
    const points = Array.from({ length: 100_000 }, (_, i) => [1_700_000_000_000 + i * 60_000, 10_000 + i / 7])
    const value = { name: 'big', count: points.length, ratio: 0.5, points, model: {}, anything: null, either: 's', level: 'high', flag: true,
      meta: { id: 2 }, when: '2026-11-25T20:00:00.000Z', nested: null }
    const { value: text, turns } = await turnsDuring(() => writeInTurns(value, shapeOf(answer)))
    expect(text.text()).toBe(serialize(value))
    // Encoded as written, so a reply sends bytes instead of encoding megabytes of text in one socket write.
    expect(Buffer.concat(text.bytes!).toString()).toBe(text.text())
    const sent: Buffer[] = []
    for await (const chunk of text.payload() as AsyncIterable<Buffer>) sent.push(chunk)
    expect(Buffer.concat(sent).toString()).toBe(serialize(value))
    expect(text.parts.length).toBeGreaterThan(10)
    expect(turns).toBeGreaterThanOrEqual(text.parts.length - 1)
    for (const part of text.parts) expect(part.length).toBeLessThanOrEqual(PART_CHARS)
  })
})
