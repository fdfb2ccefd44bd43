// The one JSON serializer of answers: a zod schema's JSON Schema compiled by fast-json-stringify (Fastify's own), the
// same function in a route, a job and a mill worker, so an answer written where it is computed is the route's text.
import { randomUUID } from 'node:crypto'
import fastJson from 'fast-json-stringify'
import { z } from 'zod'
import { JsonBytes } from './bytes.js'

export type Serialize = (data: unknown) => string

/** The JSON Schema fast-json-stringify compiles for a response: zod's, with nullable members rewritten (below). */
export function responseJsonSchema(schema: z.ZodType): unknown {
  return nullableInPlace(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }))
}

const compile = (json: unknown): Serialize => fastJson(json as Parameters<typeof fastJson>[0]) as Serialize

const serializers = new WeakMap<z.ZodType, Serialize>()

/** The serializer of a schema, compiled once on first use. */
export function serializerOf(schema: z.ZodType): Serialize {
  let serialize = serializers.get(schema)
  if (!serialize) serializers.set(schema, (serialize = compile(responseJsonSchema(schema))))
  return serialize
}

/** A value written once by a schema's serializer, as bytes that are then sent (and stored) as they are. */
export function writtenBy(schema: z.ZodType, value: unknown): JsonBytes {
  return value instanceof JsonBytes ? value : JsonBytes.of(serializerOf(schema)(value))
}

/**
 * A schema as a mill task takes it: plain data (its JSON Schema) under a key this process gave it, so a worker
 * compiles it once and then knows it by the key. Tasks cannot import a surface's schemas (the flow is downward).
 */
export interface AnswerSchema {
  key: string
  json: unknown
}

const answerSchemas = new WeakMap<z.ZodType, AnswerSchema>()
let keys = 0

export function answerSchema(schema: z.ZodType): AnswerSchema {
  let answer = answerSchemas.get(schema)
  if (!answer) answerSchemas.set(schema, (answer = { key: `s${++keys}`, json: responseJsonSchema(schema) }))
  return answer
}

const byKey = new Map<string, Serialize>()

/** The serializer a worker compiled for an AnswerSchema (once per key). */
export function serializerFor(schema: AnswerSchema): Serialize {
  let serialize = byKey.get(schema.key)
  if (!serialize) byKey.set(schema.key, (serialize = compile(schema.json)))
  return serialize
}

/** A value written through an AnswerSchema as UTF-8 bytes in a buffer of their own (so they can move to the loop). */
export function answerBytes(schema: AnswerSchema, value: unknown): Uint8Array {
  return new TextEncoder().encode(serializerFor(schema)(value))
}

// A member written elsewhere (a mill worker) is marked in the object's text by a string no answer holds.
const MARK = `splice-${randomUUID()}-`
const splicers = new WeakMap<z.ZodType, Map<string, Serialize>>()

/**
 * An object answer whose wide top-level members were written by a worker through their own schemas: the rest is
 * written here through the answer's schema, with those members as marks that their bytes then replace. The object's
 * schema is compiled once per set of such members, with each of them declared a string, so every member keeps its place.
 */
export function splicedAnswer<T extends object>(schema: z.ZodType, value: T, written: Record<string, Uint8Array | JsonBytes | null | undefined>): JsonBytes {
  const names = Object.keys(written).filter((name) => written[name] != null).sort()
  let forSchema = splicers.get(schema)
  if (!forSchema) splicers.set(schema, (forSchema = new Map()))
  const id = names.join(',')
  let serialize = forSchema.get(id)
  if (!serialize) {
    const json = structuredClone(responseJsonSchema(schema)) as { properties?: Record<string, unknown> }
    for (const name of names) {
      if (!json.properties?.[name]) throw new Error(`the answer's schema has no member ${name} to splice`)
      json.properties[name] = { type: 'string' }
    }
    forSchema.set(id, (serialize = compile(json)))
  }
  const marked: Record<string, unknown> = Object.fromEntries(Object.entries(value))
  names.forEach((name, i) => (marked[name] = `${MARK}${i}`))
  const text = serialize(marked)
  const found = names.map((name, i) => ({ at: text.indexOf(`"${MARK}${i}"`), bytes: written[name]!, length: `"${MARK}${i}"`.length }))
  found.sort((x, y) => x.at - y.at)
  const chunks: Uint8Array[] = []
  let from = 0
  for (const { at, bytes, length } of found) {
    chunks.push(Buffer.from(text.slice(from, at)), ...(bytes instanceof JsonBytes ? bytes.chunks : [bytes]))
    from = at + length
  }
  chunks.push(Buffer.from(text.slice(from)))
  return new JsonBytes(chunks)
}

type Node = Record<string, unknown>
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null

/**
 * zod writes `.nullable()` as `anyOf: [X, {type: "null"}]`, and fast-json-stringify picks an anyOf branch by
 * validating the value against each (ajv): a SAT model of 100k literals, or a 100k-variable assignment, was checked
 * whole before it was written, up to a third of the answer's cost. The same schema as `X` with `nullable: true` writes
 * the same JSON without the check. Rewritten everywhere in the tree, iteratively (schemas nest deeply).
 */
export function nullableInPlace(root: unknown): unknown {
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) {
      stack.push(...node)
      continue
    }
    if (!isNode(node)) continue
    const anyOf = node.anyOf
    if (Array.isArray(anyOf) && anyOf.length === 2) {
      const nullAt = anyOf.findIndex((branch) => isNode(branch) && branch.type === 'null' && Object.keys(branch).length === 1)
      const other = anyOf[1 - nullAt]
      if (nullAt !== -1 && isNode(other) && typeof other.type === 'string' && other.type !== 'null' && !('nullable' in other)) {
        delete node.anyOf
        Object.assign(node, other, { nullable: true })
      }
    }
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) stack.push(value)
  }
  return root
}
