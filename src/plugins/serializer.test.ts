// The serializer writes what JSON.stringify of the schema's output would, with nullable fields rewritten for speed.
import fastJson from 'fast-json-stringify'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { zodSerializerCompiler } from './serializer.js'
import { LOOP_VALUE_MAX_BYTES } from '../json/loop-rule.js'
import { JsonBytes } from '../json/bytes.js'
import { nullableInPlace } from '../json/serializer.js'

const schema = z.object({
  model: z.array(z.number().int()).nullable(),
  assignment: z.record(z.string(), z.boolean()).nullable(),
  stopped_by: z.enum(['deadline']).nullable(),
  nested: z.object({ at: z.string().nullable(), n: z.number().nullable(), deep: z.object({ ok: z.boolean() }).nullable() }),
  items: z.array(z.object({ v: z.number().int().nullable() })),
})

const serialize = zodSerializerCompiler()({ schema, method: 'POST', url: '/x', httpStatus: '200' }) as (data: unknown) => string
const viaAnyOf = fastJson(z.toJSONSchema(schema, { target: 'draft-7', io: 'output' }) as Parameters<typeof fastJson>[0])

const values = [
  { model: [1, -2, 3], assignment: { a: true, b: false }, stopped_by: 'deadline', nested: { at: 'x', n: 1.5, deep: { ok: true } }, items: [{ v: 1 }, { v: null }] },
  { model: null, assignment: null, stopped_by: null, nested: { at: null, n: null, deep: null }, items: [] },
  { model: [], assignment: {}, stopped_by: null, nested: { at: '', n: 0, deep: { ok: false } }, items: [{ v: 0 }], extra: 'dropped' },
]

describe('response serializer', () => {
  it.each(values.map((v, i) => [i, v]))('writes value %i as the anyOf schema did', (_i, value) => {
    expect(serialize(value)).toBe(viaAnyOf(value))
    expect(JSON.parse(serialize(value))).toEqual(JSON.parse(viaAnyOf(value)))
  })

  it('rewrites anyOf [X, null] as X with nullable, and leaves other unions alone', () => {
    const rewritten = nullableInPlace({
      properties: {
        a: { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] },
        b: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        c: { anyOf: [{ type: 'null' }, { type: 'object', properties: { d: { anyOf: [{ type: 'number' }, { type: 'null' }] } } }] },
      },
    }) as { properties: Record<string, unknown> }
    expect(rewritten.properties.a).toEqual({ type: 'array', items: { type: 'integer' }, nullable: true })
    expect(rewritten.properties.b).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }] })
    expect(rewritten.properties.c).toEqual({ type: 'object', nullable: true, properties: { d: { type: 'number', nullable: true } } })
  })
})

describe('the loop tripwire (LOOP_TRIPWIRE=throw)', () => {
  const armed = zodSerializerCompiler({ tripwire: 'throw' })({ schema, method: 'POST', url: '/wide', httpStatus: '200' }) as (data: unknown) => unknown
  const withModel = (n: number) => ({ ...values[1], model: Array.from({ length: n }, (_, i) => i) })
  const length = (n: number) => serialize(withModel(n)).length

  it('lets an answer of at most LOOP_VALUE_MAX_BYTES of JSON through, and throws past it, naming the route', () => {
    let n = 1
    while (length(n * 2) <= LOOP_VALUE_MAX_BYTES) n *= 2
    expect(armed(withModel(n))).toBe(serialize(withModel(n)))
    expect(() => armed(withModel(n * 4))).toThrow(/loop tripwire: \/wide wrote \d+ characters of JSON on the event loop/)
  })

  it('sends an answer written in the mill (JsonBytes) whatever its size, and is off unless asked', () => {
    const big = serialize(withModel(50_000))
    expect(big.length).toBeGreaterThan(LOOP_VALUE_MAX_BYTES)
    expect(Buffer.from(armed(JsonBytes.of(big)) as Buffer).toString()).toBe(big)
    expect(serialize(withModel(50_000))).toBe(big)
  })
})
