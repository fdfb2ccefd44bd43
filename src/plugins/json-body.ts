// The one JSON body parser of the host (both surfaces): nesting depth counted before parsing, numbers that overflow
// to ±Infinity refused after it. Each is a refusal (invalid_input / over_limit), never a 500 or a stalled loop.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { parseJsonText } from '../json-text.js'

export interface JsonBodyOptions {
  /** Deepest nesting of arrays and objects a body may have. */
  maxDepth: number
  /** Most values (array/object members) a body may hold. */
  maxValues: number
}

export default fp(
  async function jsonBodyPlugin(app: FastifyInstance, opts: JsonBodyOptions) {
    // Fastify's own parser (prototype-poisoning protection, its empty/invalid-body errors), wrapped with our rules.
    const fastifyParser = app.getDefaultJsonParser('error', 'ignore')
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
      const text = body as string
      if (text.length === 0) return fastifyParser(req, text, done)
      let failure: Error | null = null
      const parse = (t: string): unknown => {
        let parsed: unknown
        fastifyParser(req, t, (err, value) => {
          failure = err
          parsed = value
        })
        if (failure) throw failure
        return parsed
      }
      try {
        done(null, parseJsonText(text, opts.maxDepth, parse, opts.maxValues))
      } catch (err) {
        done(err as Error, undefined)
      }
    })
  },
  { name: 'ncm-json-body', fastify: '5.x' },
)
