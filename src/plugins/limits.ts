// Host-wide protections: security headers (helmet) and the per-IP rate limit (SPEC §1.5).
import fp from 'fastify-plugin'
import helmet from 'helmet'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'

export interface LimitsOptions {
  /** Requests per minute per client IP; 0 turns the limiter off. */
  rateLimitPerMin: number
}

export class RateLimitedError extends Error {
  readonly statusCode = 429
  readonly code = 'NCM_RATE_LIMITED'
  constructor(readonly retryAfterS: number, max: number) {
    super(`over the rate limit of ${max} requests per minute for this client; retry in ${retryAfterS} s`)
  }
}

/** helmet's middleware, built once (@fastify/helmet rebuilds it on every request, a third of a small request's cost). */
const securityHeaders = helmet({
  // The explorer, the reference and our server-rendered pages use inline scripts and styles; nothing loads from elsewhere.
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", "'unsafe-inline'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      workerSrc: ["'self'", 'blob:'],
    },
  },
  crossOriginEmbedderPolicy: false,
})

export default fp(
  async function limitsPlugin(app: FastifyInstance, opts: LimitsOptions) {
    app.addHook('onRequest', (req, reply, done) => {
      securityHeaders(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined))
    })
    if (opts.rateLimitPerMin > 0) {
      await app.register(rateLimit, {
        max: opts.rateLimitPerMin,
        timeWindow: 60_000,
        errorResponseBuilder: (_req, context) =>
          new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000)), Number(context.max)),
      })
    }
  },
  { name: 'ncm-limits', fastify: '5.x' },
)
