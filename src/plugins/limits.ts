// Host-wide protections: security headers (helmet's set), the request id echo and the per-IP rate limit (SPEC §1.5).
import fp from 'fastify-plugin'
import helmet from 'helmet'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { localLimiter } from './local-limiter.js'
import { sharedLimiter, type LimiterState } from '../redis/limiter-store.js'
import type { SharedRedis } from './redis.js'

/**
 * Where the rate limit counts, for health: off; this process's memory (no REDIS_URL); or Redis, shared by every
 * replica — `memory` with `degraded` set while Redis cannot answer.
 */
export interface LimiterReport {
  store: 'off' | LimiterState['store']
  /** Whose requests one quota covers. */
  scope: 'none' | 'process' | 'replicas'
  key_prefix: string | null
  degraded: LimiterState['degraded']
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts a request toward its client's quota and throws a RateLimitedError past it; null when the limiter is off.
     * Requests that never reach routing (malformed URLs) call it by hand.
     */
    limitRequest: ((req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | null
    limiterReport(): LimiterReport
  }
}

export interface LimitsOptions {
  /** Requests per minute per client IP; 0 turns the limiter off. */
  rateLimitPerMin: number
  /** Requests that never count toward a quota: the host's own in-process checks. */
  exempt?: (req: FastifyRequest) => boolean
  /** With a shared Redis the quota is one count across replicas (keys under `<REDIS_PREFIX>rl:`). */
  redis?: SharedRedis | null
}

export class RateLimitedError extends Error {
  readonly statusCode = 429
  readonly code = 'NCM_RATE_LIMITED'
  constructor(readonly retryAfterS: number, max: number) {
    super(`over the rate limit of ${max} requests per minute for this client; retry in ${retryAfterS} s`)
  }
}

/** helmet's policy for this host. */
const helmetMiddleware = helmet({
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

type HeaderSet = ReadonlyArray<readonly [string, string]>

/**
 * The headers helmet sets, captured once: none of our directives depends on the request. Running helmet's middleware
 * per request rebuilt the CSP string each time.
 */
const HELMET_HEADERS: HeaderSet = captureHeaders(helmetMiddleware)

/**
 * Strict-Transport-Security only on answers that travelled over TLS (directly, or via a trusted proxy's
 * X-Forwarded-Proto): RFC 6797 §7.2 says a host MUST NOT send it over plain HTTP, where browsers ignore it anyway.
 */
export const HSTS: readonly [string, string] = ['strict-transport-security', headerOf(HELMET_HEADERS, 'strict-transport-security')]

/** Documents (pages, the explorer, anything outside /api/) get helmet's set. */
export const PAGE_SECURITY_HEADERS: HeaderSet = HELMET_HEADERS.filter(([name]) => name !== HSTS[0])

/**
 * JSON API responses (/api/…) get the OWASP REST Security Cheat Sheet's set instead: no framing, no sniffing, no
 * referrer, no caching of live answers (and HSTS over TLS, as everywhere). Document-only policies (COOP, CORP,
 * Origin-Agent-Cluster, DNS prefetch…) mean nothing to a JSON body, and half as many headers is a measurable share
 * of a small API answer.
 */
export const API_SECURITY_HEADERS: HeaderSet = [
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
  ['cache-control', 'no-store'],
]

function headerOf(set: HeaderSet, name: string): string {
  const found = set.find(([n]) => n === name)
  if (!found) throw new Error(`helmet no longer sets ${name}`)
  return found[1]
}

function captureHeaders(middleware: typeof helmetMiddleware): Array<[string, string]> {
  const headers = new Map<string, string>()
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name.toLowerCase(), String(value)),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
  }
  let failure: unknown = null
  middleware({ headers: {} } as never, res as never, (err?: unknown) => { failure = err ?? null })
  if (failure) throw failure
  return [...headers]
}

/** OWASP's REST set for the APIs, helmet's document set for pages. */
export const securityHeadersFor = (url: string) => (url.startsWith('/api/') ? API_SECURITY_HEADERS : PAGE_SECURITY_HEADERS)

/**
 * Every response's fixed headers and the request id echo, into Fastify's reply headers: they leave with the answer's
 * one writeHead, where Node checks each once. (Through the raw response's setHeader, each header was checked and
 * stored there, and writeHead then merged Fastify's own headers into that store one setHeader at a time.)
 */
export function setSecurityHeaders(req: FastifyRequest, reply: FastifyReply) {
  const set = securityHeadersFor(req.url)
  for (let i = 0; i < set.length; i++) reply.header(set[i]![0], set[i]![1])
  if (req.protocol === 'https') reply.header(HSTS[0], HSTS[1])
  reply.header('x-request-id', req.id)
}

/** For answers written on the raw response after `reply.hijack()`, which never sends Fastify's reply headers. */
export function setRawSecurityHeaders(req: FastifyRequest, reply: FastifyReply) {
  const raw = reply.raw
  for (const [name, value] of securityHeadersFor(req.url)) raw.setHeader(name, value)
  if (req.protocol === 'https') raw.setHeader(HSTS[0], HSTS[1])
  raw.setHeader('x-request-id', req.id)
}

export default fp(
  async function limitsPlugin(app: FastifyInstance, opts: LimitsOptions) {
    // One synchronous hook for every response's fixed headers and the request id echo.
    app.addHook('onRequest', (req, reply, done) => {
      setSecurityHeaders(req, reply)
      done()
    })
    app.decorate('limitRequest', null)
    app.decorate('limiterReport', (): LimiterReport => ({ store: 'off', scope: 'none', key_prefix: null, degraded: null }))
    if (opts.rateLimitPerMin > 0) {
      if (opts.redis) await limitAcrossReplicas(app, opts, opts.redis)
      else limitInMemory(app, opts)
    }
  },
  { name: 'ncm-limits', fastify: '5.x' },
)

/** One quota per client across replicas: @fastify/rate-limit over the shared Redis store (in memory while it is down). */
async function limitAcrossReplicas(app: FastifyInstance, opts: LimitsOptions, redis: SharedRedis): Promise<void> {
  const prefix = `${redis.prefix}rl:`
  const shared = sharedLimiter(redis.commands, prefix, (state) => {
    if (state.degraded) app.log.warn({ reason: state.degraded.reason }, 'rate limit: Redis unreachable, counting per replica in memory')
    else app.log.info('rate limit: Redis answers again, counting across replicas')
  })
  app.limiterReport = () => ({ scope: 'replicas', key_prefix: prefix, ...shared.state() })
  const { default: rateLimit } = await import('@fastify/rate-limit')
  await app.register(rateLimit, {
    store: shared.Store as never,
    max: opts.rateLimitPerMin,
    timeWindow: 60_000,
    // Not per route (the plugin's default): one root hook, so unmatched routes count toward the quota too.
    global: false,
    ...(opts.exempt ? { allowList: opts.exempt } : {}),
    errorResponseBuilder: (_req, context) =>
      new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000)), Number(context.max)),
  })
  const limitRequest = app.rateLimit()
  app.limitRequest = limitRequest
  app.addHook('onRequest', limitRequest)
}

/** One quota per client in this process: the same answers as the plugin's in-memory store, one synchronous step. */
function limitInMemory(app: FastifyInstance, opts: LimitsOptions): void {
  app.limiterReport = () => ({ store: 'memory', scope: 'process', key_prefix: null, degraded: null })
  const limit = localLimiter({
    max: opts.rateLimitPerMin,
    windowMs: 60_000,
    exempt: opts.exempt,
    refusal: (retryAfterS, max) => new RateLimitedError(retryAfterS, max),
  })
  app.limitRequest = async (req, reply) => {
    const refused = limit(req, reply)
    if (refused) throw refused
  }
  // one root hook, so unmatched routes count toward the quota too; synchronous, so no promise per request
  app.addHook('onRequest', (req, reply, done) => done(limit(req, reply) ?? undefined))
}
