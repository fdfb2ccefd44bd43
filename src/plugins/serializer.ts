// Response serialization from zod schemas: the one answer serializer (src/json/serializer.ts), compiled per route.
import type { Readable } from 'node:stream'
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import type { z } from 'zod'
import { JsonBytes } from '../json/bytes.js'
import { serializerOf, type Serialize } from '../json/serializer.js'

import { LOOP_VALUE_MAX_BYTES } from '../json/loop-rule.js'

/**
 * Routes that still write more than LOOP_VALUE_MAX_BYTES on the loop, each with the bound that keeps it finite: the
 * tripwire lets these through and trips on every other route. Each is work left (issue #30): write it in the mill, or
 * page it below the limit, then take it off this list.
 */
export const STILL_WRITTEN_ON_THE_LOOP: ReadonlyMap<string, string> = new Map([
  ['/api/v1/admin/go-live/overview', 'the host\'s own readiness report, ~75 KB, sized by its configuration, not by a request'],
  ['/api/v1/clauses', 'a small CNF answered on the loop (at most 64 KiB of DIMACS or 16,384 literals, and 16,384 variables): its model, lists and simplified CNF, about 0.6 MB at most; a larger CNF\'s answer is written in the mill'],
  ['/api/v1/diff', 'a diff worked on the loop: inputs up to DIFF_LIMITS.inline (256 Ki characters), which anyone may ask; heavier ones run in the mill, which needs run:heavy'],
  ['/api/v11/datasets/:ref', 'a page of at most 500 bars'],
])

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
    const tripped = armed && !STILL_WRITTEN_ON_THE_LOOP.has(url ?? '')
    // Compiled on the route's first answer with that status, not at start: compiling every route's schemas was about a
    // sixth of the start-up time, and most routes (and most error statuses) are never answered in a process's life.
    let serialize: Serialize | null = null
    return (data: unknown): string | Buffer | Readable => {
      // An answer already written through this schema (where it was computed) is sent as its bytes.
      if (data instanceof JsonBytes) return data.payload()
      const text = (serialize ??= serializerOf(schema))(data)
      if (tripped && text.length > LOOP_VALUE_MAX_BYTES) {
        const message = `loop tripwire: ${url ?? 'a route'} wrote ${text.length} characters of JSON on the event loop, over ` +
          `${LOOP_VALUE_MAX_BYTES}: write this answer in the mill (src/json/serializer.ts answerSchema)`
        // Said on stderr too: the tests' hosts log nothing, and their 500 names only the request id.
        process.stderr.write(`${message}\n`)
        throw new Error(message)
      }
      return text
    }
  }
  // Fastify types a serializer's result as a string, and sends the Buffer or stream one returns as it is.
  return compiler as FastifySerializerCompiler<z.ZodType>
}
