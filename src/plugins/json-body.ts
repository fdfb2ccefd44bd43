// The one JSON body parser of the host (both surfaces): nesting depth and values counted before parsing, numbers that
// overflow to ±Infinity refused after it. Each is a refusal (invalid_input / over_limit), never a 500 or a stalled
// loop. Bodies over 1 MiB are read into blocks and decoded, scanned and parsed in the body thread (body-parse/).
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { createBodyReader, type BodyReader } from '../body-parse/reader.js'
import type { BodyFormat } from '../body-parse/formats.js'

export interface JsonBodyOptions {
  /** Deepest nesting of arrays and objects a body may have. */
  maxDepth: number
  /** Most values (array/object members) a body may hold. */
  maxValues: number
  /** Bodies larger than this are parsed off the event loop (default 1 MiB; tests lower it). */
  offLoopBytes?: number
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Reads and parses request bodies, large ones off the event loop; other content types' parsers use it too. */
    bodyReader: BodyReader
  }
}

/** Reads `payload` as `format` under the route's body limit (a content-type parser without parseAs). */
export function readBody(reader: BodyReader, req: FastifyRequest, payload: Readable, format: BodyFormat): Promise<unknown> {
  return reader.read(payload, Number(req.headers['content-length']), req.routeOptions.bodyLimit, format)
}

export default fp(
  async function jsonBodyPlugin(app: FastifyInstance, opts: JsonBodyOptions) {
    const reader = createBodyReader({ offLoopBytes: opts.offLoopBytes })
    const format: BodyFormat = { kind: 'json', maxDepth: opts.maxDepth, maxValues: opts.maxValues }
    app.decorate('bodyReader', reader)
    app.addHook('onClose', async () => reader.close())
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', (req: FastifyRequest, payload: Readable) => readBody(reader, req, payload, format))
  },
  { name: 'ncm-json-body', fastify: '5.x' },
)
