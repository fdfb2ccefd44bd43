// The rate limit with REDIS_URL: one quota per client across replicas (three hosts sharing one Redis prefix), and
// what happens while Redis cannot answer (each replica counts alone in memory; see src/redis/limiter-store.ts).
import { afterAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, expectRefusal, json, okData } from '../helper.js'
import { freePort } from '../process.js'
import { redisForTests, testPrefix } from './helper.js'
import { relayTo } from './relay.js'

const redis = await redisForTests()
const QUOTA = 12

describe.skipIf(!redis.available)('a shared quota across three replicas', () => {
  const prefix = testPrefix()
  const replicas: FastifyInstance[] = []
  afterAll(async () => Promise.all(replicas.map((app) => app.close())))

  it(`${QUOTA} + 10 requests spread over three replicas: exactly 10 refused`, async () => {
    for (let i = 0; i < 3; i++) {
      replicas.push(await buildTestApp({ env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix, RATE_LIMIT_PER_MIN: String(QUOTA) } }))
    }
    const statuses: number[] = []
    for (let i = 0; i < QUOTA + 10; i++) {
      const res = await replicas[i % 3]!.inject({ url: '/api/v1/health', remoteAddress: '10.1.2.3' })
      statuses.push(res.statusCode)
      if (res.statusCode === 429) expectRefusal(res, 'rate_limited', 429)
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(10)
    expect(statuses.slice(0, QUOTA).every((s) => s === 200)).toBe(true)
    // Another client is counted apart.
    expect((await replicas[1]!.inject({ url: '/api/v1/health', remoteAddress: '10.9.9.9' })).statusCode).toBe(200)
    expect(replicas[0]!.limiterReport()).toMatchObject({ store: 'redis', scope: 'replicas', key_prefix: `${prefix}rl:`, degraded: null })
  })

  it('the health reports name the limiter store and measure Redis (latency, version)', async () => {
    const app = replicas[2]!
    const caller = okData(await app.inject({ url: '/api/v1/health', remoteAddress: '10.7.7.7' }))
    expect(caller.scale_out.rate_limit).toEqual({ store: 'redis', scope: 'replicas', key_prefix: `${prefix}rl:`, degraded: null })
    expect(caller.scale_out.redis).toMatchObject({ url: redis.url, reachable: true, version: expect.stringMatching(/^\d+\.\d+/), error: null })
    expect(caller.scale_out.redis.latency_ms).toBeGreaterThanOrEqual(0)
    expect(caller.checks['redis:responseTime'][0]).toMatchObject({ componentType: 'datastore', status: 'pass', output: `Redis ${caller.scale_out.redis.version}` })
    const root = json(await app.inject({ url: '/health', remoteAddress: '10.7.7.7' }))
    expect(root.status).toBe('ok')
    expect(root.scale_out).toMatchObject({ rate_limit: { store: 'redis' }, redis: { reachable: true } })
  })
})

describe.skipIf(!redis.available)('while Redis cannot answer', () => {
  const prefix = testPrefix()
  const env = { REDIS_PREFIX: prefix, RATE_LIMIT_PER_MIN: String(QUOTA) }
  const apps: FastifyInstance[] = []
  const relays: Array<{ cut(): Promise<void> }> = []
  // The hosts close while Redis still answers, then the relays go: this file is about the limiter, and a close in an
  // outage left a rejection of one of BullMQ's connections unhandled once under load (its own, not the limiter's).
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()))
    await Promise.all(relays.map((relay) => relay.cut()))
  })
  const hit = (app: FastifyInstance) => app.inject({ url: '/api/v1/health', remoteAddress: '10.4.4.4' })

  it('unreachable from the start: the host serves, and counts this replica alone in memory', async () => {
    const app = await buildTestApp({ env: { ...env, REDIS_URL: `redis://127.0.0.1:${await freePort()}` } })
    apps.push(app)
    const statuses: number[] = []
    for (let i = 0; i < QUOTA + 3; i++) statuses.push((await hit(app)).statusCode)
    expect(statuses.filter((s) => s === 429)).toHaveLength(3)
    expect(app.limiterReport()).toMatchObject({ store: 'memory', scope: 'replicas', degraded: { reason: expect.any(String) } })
    // Health says so: degraded, not down (light requests answer); readiness carries it as a notice.
    const root = json(await app.inject({ url: '/health', remoteAddress: '10.5.5.5' }))
    expect(root.status).toBe('degraded')
    expect(root.scale_out).toMatchObject({ rate_limit: { store: 'memory', degraded: { reason: expect.any(String) } }, redis: { reachable: false, latency_ms: null } })
    const caller = okData(await app.inject({ url: '/api/v1/health', remoteAddress: '10.5.5.5' }))
    expect(caller.status).toBe('warn')
    expect(caller.checks['redis:responseTime'][0]).toMatchObject({ status: 'warn', observedValue: null, output: expect.stringMatching(/^unreachable: /) })
  })

  it('lost mid-window: memory counts from there; back again: the shared count resumes where Redis left it', async () => {
    const relay = await relayTo(new URL(redis.url))
    relays.push(relay)
    const app = await buildTestApp({ env: { ...env, REDIS_URL: relay.url } })
    apps.push(app)
    for (let i = 0; i < 5; i++) expect((await hit(app)).statusCode).toBe(200)
    expect(Number((await hit(app)).headers['x-ratelimit-remaining'])).toBe(QUOTA - 6)
    expect(app.limiterReport().degraded).toBeNull()

    await relay.cut()
    const statuses: number[] = []
    for (let i = 0; i < QUOTA + 3; i++) statuses.push((await hit(app)).statusCode)
    expect(statuses.filter((s) => s === 429)).toHaveLength(3)
    expect(app.limiterReport()).toMatchObject({ store: 'memory', degraded: { reason: expect.any(String) } })

    await relay.restore()
    let back = null
    for (let tries = 0; tries < 100 && !back; tries++) {
      const res = await hit(app)
      if (app.limiterReport().store === 'redis') back = res
      else await new Promise((r) => setTimeout(r, 100))
    }
    expect(back, 'the limiter went back to Redis after the relay was restored').not.toBeNull()
    // Six counted in Redis before the outage, this one the seventh.
    expect(back!.statusCode).toBe(200)
    expect(Number(back!.headers['x-ratelimit-remaining'])).toBe(QUOTA - 7)
  })
})

describe('without REDIS_URL', () => {
  it('the health reports say the limiter counts in this process and no Redis is configured', async () => {
    const app = await buildTestApp({ env: { RATE_LIMIT_PER_MIN: '50' } })
    try {
      const scaleOut = okData(await app.inject('/api/v1/health')).scale_out
      expect(scaleOut).toEqual({
        queue_backend: 'local', rate_limit: { store: 'memory', scope: 'process', key_prefix: null, degraded: null }, redis: null,
      })
      expect(json(await app.inject('/health')).scale_out).toEqual(scaleOut)
    } finally {
      await app.close()
    }
  })
})
