import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { flatObjectSchema } from './flat-schema.js'

const jsonOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>

describe('flatObjectSchema', () => {
  it('leaves a plain object as it is (with properties)', () => {
    const schema = jsonOf(z.object({ a: z.string() }).strict())
    expect(flatObjectSchema(schema)).toEqual({ ...schema, properties: { a: { type: 'string' } } })
    expect(flatObjectSchema({ type: 'object' })).toEqual({ type: 'object', properties: {} })
  })

  it('merges a union of object forms into one object whose description states the forms', () => {
    const flat = flatObjectSchema(jsonOf(z.union([
      z.object({ op: z.string(), input: z.number().optional() }).strict(),
      z.object({ batch: z.array(z.string()), stop: z.boolean().optional() }).strict(),
    ])))
    expect(flat).not.toHaveProperty('anyOf')
    expect(flat.type).toBe('object')
    expect(Object.keys(flat.properties)).toEqual(['op', 'input', 'batch', 'stop'])
    expect(flat).not.toHaveProperty('required')
    expect(flat.additionalProperties).toBe(false)
    expect(flat.description).toBe('Give exactly one of these forms (fields marked ? are optional): {op, input?} or {batch, stop?}.')
  })

  it('a field of several forms with different schemas takes any of them; open forms leave the object open', () => {
    const flat = flatObjectSchema(jsonOf(z.union([z.object({ x: z.string() }), z.object({ x: z.number(), y: z.boolean() })]).describe('Two ways.')))
    expect(flat.properties.x).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] })
    expect(flat).not.toHaveProperty('additionalProperties')
    expect(flat.description).toMatch(/^Two ways\. Give exactly one/)
  })

  it('refuses to flatten a union with a form that is not an object', () => {
    expect(() => flatObjectSchema(jsonOf(z.union([z.object({ a: z.string() }), z.string()])))).toThrow(/cannot be flattened/)
  })
})
