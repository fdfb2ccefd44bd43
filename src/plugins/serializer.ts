// Response serialization from zod schemas: the one answer serializer (src/json/serializer.ts), compiled per route.
import type { Readable } from 'node:stream'
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import type { z } from 'zod'
import { JsonBytes } from '../json/bytes.js'
import { serializerOf, type Serialize } from '../json/serializer.js'

/**
 * fastify-type-provider-zod's serializer parses every response with zod before JSON.stringify; that cost the envelope
 * route a third of its throughput. Compiling the same schema for fast-json-stringify keeps its effect (unknown keys
 * dropped, only declared fields sent) at a fraction of the cost. The contract test still parses every example's
 * `data` with the zod schema, so the shapes stay checked.
 */
const compiler = ({ schema }: { schema: z.ZodType }) => {
  // Compiled on the route's first answer with that status, not at start: compiling every route's schemas was about a
  // sixth of the start-up time, and most routes (and most error statuses) are never answered in a process's life.
  let serialize: Serialize | null = null
  // An answer already written through this schema (where it was computed) is sent as its bytes.
  return (data: unknown): string | Buffer | Readable => (data instanceof JsonBytes ? data.payload() : (serialize ??= serializerOf(schema))(data))
}

/** Fastify types a serializer's result as a string, and sends the Buffer or stream one returns as it is. */
export const zodSerializerCompiler = compiler as FastifySerializerCompiler<z.ZodType>
