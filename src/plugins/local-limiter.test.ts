// The in-memory limiter answers as @fastify/rate-limit's in-memory store did with the same settings: status, the
// x-ratelimit-* headers and retry-after, request by request, across clients (IPv4, IPv6 /64s) and window restarts.
import Fastify, { type FastifyInstance } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import { afterEach, describe, expect, it, vi } from 'vitest'
import limitsPlugin, { RateLimitedError } from './limits.js'

const MAX = 3
const LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'] as const

async function withPlugin(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(rateLimit, {
    max: MAX,
    timeWindow: 60_000,
    global: false,
    allowList: (req) => req.headers['x-exempt'] === '1',
    errorResponseBuilder: (_req, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000)), Number(context.max)),
  })
  app.addHook('onRequest', app.rateLimit())
  app.get('/', async () => ({ ok: true }))
  return app
}

async function withLocal(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(limitsPlugin, { rateLimitPerMin: MAX, exempt: (req) => req.headers['x-exempt'] === '1' })
  app.get('/', async () => ({ ok: true }))
  return app
}

afterEach(() => {
  vi.useRealTimers()
})

describe('localLimiter', () => {
  it('answers every request of a mixed sequence exactly as @fastify/rate-limit did', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 })
    const [reference, local] = [await withPlugin(), await withLocal()]
    const clients = ['127.0.0.1', '10.0.0.7', '2001:db8::1', '2001:db8::2', '2001:DB8:0:1::5', '::ffff:10.0.0.7']
    // steps: [client index, ms to advance the clock before the request, exempt?] — bursts of up to 6 requests per
    // client (past the quota of 3) with sub-second gaps, then gaps around the window's end
    const steps: Array<[number, number, boolean]> = []
    let seed = 7
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n
    for (let burst = 0; burst < 40; burst++) {
      const c = next(clients.length)
      const size = 1 + next(6)
      for (let k = 0; k < size; k++) steps.push([c, [0, 1, 250, 999, 1001][next(5)]!, next(9) === 0])
      steps.push([next(clients.length), [0, 20_000, 58_999, 59_001, 60_000, 61_000][next(6)]!, false])
    }
    let refused = 0
    for (const [c, advance, exempt] of steps) {
      vi.advanceTimersByTime(advance)
      const options = { url: '/', remoteAddress: clients[c]!, headers: exempt ? { 'x-exempt': '1' } : {} }
      const [a, b] = [await reference.inject(options), await local.inject(options)]
      expect(b.statusCode).toBe(a.statusCode)
      for (const h of LIMIT_HEADERS) expect([h, b.headers[h]]).toEqual([h, a.headers[h] === undefined ? undefined : String(a.headers[h])])
      if (a.statusCode === 429) expect(b.json()).toEqual(a.json())
      refused += a.statusCode === 429 ? 1 : 0
    }
    expect(refused).toBeGreaterThan(5) // the sequence does reach past the quota
    await reference.close()
    await local.close()
  })
})
