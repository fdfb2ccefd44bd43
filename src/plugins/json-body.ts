// The one JSON body parser of the host (both surfaces): nesting depth and values counted before parsing, numbers that
// overflow to ±Infinity refused after it. Each is a refusal (invalid_input / over_limit), never a 500 or a stalled
// loop. Bodies over 64 KiB are read into blocks that move to the mill, where they are decoded, scanned and parsed.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { Readable } from 'node:stream'
import { createBodyReader, type BodyReader, type ParseOffLoop } from '../body-parse/reader.js'
import type { BodyFormat } from '../body-parse/formats.js'
import { nextTurn } from '../sched/turns.js'
import { DEFAULT_TIMEOUT_MS, type Mill } from '../mill/pool.js'
import { movable } from '../mill/moving.js'
import { LOOP_BODY_MAX_VALUES, tripLoopRule } from '../json/loop-rule.js'

export interface JsonBodyOptions {
  /** Deepest nesting of arrays and objects a body may have. */
  maxDepth: number
  /** Most values (array/object members) a body may hold. */
  maxValues: number
  /** Where bodies larger than offLoopBytes are parsed (its task `body.parse`). */
  mill: Mill
  /** Bodies larger than this are parsed off the event loop (default OFF_LOOP_BODY_BYTES, 64 KiB; tests change it). */
  offLoopBytes?: number
  /** A body not received whole within this long is refused request_timeout, 408 (SLOW_CLIENT_MS). */
  deadlineMs?: number
  /** `throw`: a body that comes back from the mill with more values than the loop may hold throws (LOOP_TRIPWIRE). */
  tripwire?: 'off' | 'throw'
  /** Whether the route's operation reads a large body in the mill: it gets the body's bytes (BodyBlocks), not a value. */
  readsInMill?: (req: FastifyRequest) => boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a large JSON body in the mill itself (/mcp): it gets the body's bytes (BodyBlocks), not a value. */
    bodyInMill?: boolean
  }
  interface FastifyInstance {
    /** Reads and parses request bodies, large ones off the event loop; other content types' parsers use it too. */
    bodyReader: BodyReader
  }
  interface FastifyRequest {
    /** The body was parsed in the mill: its value may hold up to JSON_MAX_VALUES values. */
    bodyOffLoop: boolean
  }
}

/**
 * Reads `payload` as `format` under the route's body limit (a content-type parser without parseAs). A body parsed in
 * the mill costs the loop its structured clone back, then its validation, then its handler: each in a turn of its
 * own (here, and the preHandler hook below), so a health check waits for one of them, never for their sum.
 */
export async function readBody(reader: BodyReader, req: FastifyRequest, payload: Readable, format: BodyFormat): Promise<unknown> {
  const contentLength = Number(req.headers['content-length'])
  const value = await reader.read(payload, {
    contentLength, limit: req.routeOptions.bodyLimit, format, owner: req.principal?.owner ?? null, route: req.routeOptions.url ?? req.url,
  })
  if (reader.offLoopFor(contentLength)) {
    req.bodyOffLoop = true
    await nextTurn()
  }
  return value
}

/** The tripwire: a body that comes back over the loop's values throws, naming the route. */
function bodyTripwire(route: string): void {
  tripLoopRule(`a body for ${route} came back from the mill with more than ${LOOP_BODY_MAX_VALUES} values for the event ` +
    'loop: run this operation in the mill from the body\'s bytes')
}

/** Large bodies parsed by the mill's `body.parse`, their blocks moved to the worker; in the client's share of the mill. */
export const millBodyParser = (mill: Mill): ParseOffLoop => (blocks, format, owner) => {
  const { views, transfer } = movable(blocks)
  return mill.run('body.parse', { blocks: views, format }, { timeoutMs: DEFAULT_TIMEOUT_MS, op: 'request body', owner, transfer })
}

/** A turn between the validation and the handler of a body parsed in the mill (a callback hook: no promise per request). */
function turnAfterLargeBody(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (req.bodyOffLoop) setImmediate(done)
  else done()
}

export default fp(
  async function jsonBodyPlugin(app: FastifyInstance, opts: JsonBodyOptions) {
    const reader = createBodyReader({
      parseOffLoop: millBodyParser(opts.mill), offLoopBytes: opts.offLoopBytes, deadlineMs: opts.deadlineMs,
      overLoop: opts.tripwire === 'throw' ? bodyTripwire : undefined,
    })
    const format: BodyFormat = { kind: 'json', maxDepth: opts.maxDepth, maxValues: opts.maxValues }
    app.decorate('bodyReader', reader)
    app.decorateRequest('bodyOffLoop', false)
    app.addHook('preHandler', turnAfterLargeBody)
    app.removeContentTypeParser('application/json')
    const inTheMill = (req: FastifyRequest) => req.routeOptions.config.bodyInMill === true || opts.readsInMill?.(req) === true
    const formatFor = (req: FastifyRequest): BodyFormat => (inTheMill(req) ? { ...format, inTheMill: true } : format)
    app.addContentTypeParser('application/json', (req: FastifyRequest, payload: Readable) => readBody(reader, req, payload, formatFor(req)))
  },
  { name: 'ncm-json-body', fastify: '5.x' },
)
