// Response serialization from zod schemas: the one answer serializer (src/json/serializer.ts), compiled per route.
import type { Readable } from 'node:stream'
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import type { z } from 'zod'
import { JsonBytes } from '../json/bytes.js'
import { serializerOf, type Serialize } from '../json/serializer.js'
import { LOOP_VALUE_MAX_BYTES, tripLoopRule } from '../json/loop-rule.js'

export interface SerializerOptions {
  /** `throw`: writing more than LOOP_VALUE_MAX_BYTES here throws (config LOOP_TRIPWIRE; the tests run with it). */
  tripwire?: 'off' | 'throw'
}

/**
 * fastify-type-provider-zod's serializer parses every response with zod before JSON.stringify; that cost the envelope
 * route a third of its throughput. Compiling the same schema for fast-json-stringify keeps its effect (unknown keys
 * dropped, only declared fields sent) at a fraction of the cost. The contract test still parses every example's
 * `data` with the zod schema, so the shapes stay checked.
 */
export function zodSerializerCompiler(options: SerializerOptions = {}): FastifySerializerCompiler<z.ZodType> {
  const armed = options.tripwire === 'throw'
  const compiler = ({ schema, url }: { schema: z.ZodType; url?: string }) => {
    // Compiled on the route's first answer with that status, not at start: compiling every route's schemas was about a
    // sixth of the start-up time, and most routes (and most error statuses) are never answered in a process's life.
    let serialize: Serialize | null = null
    return (data: unknown): string | Buffer | Readable => {
      // An answer already written through this schema (where it was computed) is sent as its bytes.
      if (data instanceof JsonBytes) return data.payload()
      const text = (serialize ??= serializerOf(schema))(data)
      if (armed && text.length > LOOP_VALUE_MAX_BYTES) {
        tripLoopRule(`${url ?? 'a route'} wrote ${text.length} characters of JSON on the event loop, over ` +
          `${LOOP_VALUE_MAX_BYTES}: write this answer in the mill (src/json/serializer.ts answerSchema)`)
      }
      return text
    }
  }
  // Fastify types a serializer's result as a string, and sends the Buffer or stream one returns as it is.
  return compiler as FastifySerializerCompiler<z.ZodType>
}
