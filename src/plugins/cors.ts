// Cross-origin access (CORS): granted only to the exact origins listed in CORS_ORIGINS; by default to none.
import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

export interface CorsOptions {
  /** Exact origins (scheme://host[:port]); empty grants no cross-origin access. */
  origins: readonly string[]
}

export default fp(
  async function corsPlugin(app: FastifyInstance, opts: CorsOptions) {
    // Nothing granted: no CORS headers at all, and OPTIONS stays an unknown route of its surface like any other method.
    if (opts.origins.length === 0) return
    await app.register(cors, {
      // A list: the request's Origin is echoed only on an exact match, and every answer carries `Vary: Origin`.
      origin: [...opts.origins],
      methods: ['GET', 'HEAD', 'POST'],
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id'],
      exposedHeaders: ['x-request-id', 'retry-after'],
      maxAge: 600,
      // A bare OPTIONS (no preflight headers) gets an empty 204, not a text/plain 400 outside the surfaces' error shapes.
      strictPreflight: false,
    })
  },
  { name: 'ncm-cors', fastify: '5.x' },
)
