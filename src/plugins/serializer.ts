// Response serialization from zod schemas: converted once to JSON Schema and compiled by fast-json-stringify (Fastify's own serializer).
import fastJson from 'fast-json-stringify'
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import { z } from 'zod'
import { WrittenJson } from '../written-json.js'

/**
 * fastify-type-provider-zod's serializer parses every response with zod before JSON.stringify; that cost the envelope
 * route a third of its throughput. Compiling the same schema for fast-json-stringify keeps its effect (unknown keys
 * dropped, only declared fields sent) at a fraction of the cost. The contract test still parses every example's
 * `data` with the zod schema, so the shapes stay checked.
 */
export const zodSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  // Compiled on the route's first answer with that status, not at start: compiling every route's schemas was about a
  // sixth of the start-up time, and most routes (and most error statuses) are never answered in a process's life.
  let serialize: ((data: unknown) => string) | null = null
  // An answer already written through this schema (a large one, a part per loop turn) is sent as its text.
  // (Fastify sends a serializer's stream as it comes: a large answer's encoded parts.)
  return (data: unknown) => (data instanceof WrittenJson ? data.payload() as string : (serialize ??= compile(schema))(data))
}

/** The JSON Schema fast-json-stringify compiles for a response: zod's, with nullable members rewritten (below). */
export function responseJsonSchema(schema: z.ZodType): unknown {
  return nullableInPlace(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }))
}

function compile(schema: z.ZodType): (data: unknown) => string {
  return fastJson(responseJsonSchema(schema) as Parameters<typeof fastJson>[0]) as (data: unknown) => string
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
