// /readyz with REDIS_URL: the shared Redis is checked (PING); unreachable, it is a warning — each replica then limits
// and queues alone — and the host stays ready.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { redisForTests, testPrefix } from './helper.js'

const redis = await redisForTests()

const redisCheck = async (app: FastifyInstance) => {
  const res = await app.inject('/readyz')
  return { status: res.statusCode, check: json(res).checks.find((c: { name: string }) => c.name === 'redis') }
}

describe.skipIf(!redis.available)('/readyz with a shared Redis', () => {
  const prefix = testPrefix()
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp({ env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix } })
  })
  afterAll(async () => app?.close())

  it('checks it with PING', async () => {
    expect((await redisCheck(app)).check).toMatchObject({ status: 'pass', detail: expect.stringMatching(/answered PING in/) })
  })
})

describe('/readyz with a Redis that does not answer', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    // A loopback port nothing listens on: connections are refused at once.
    app = await buildTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:9/0' } })
  })
  afterAll(async () => app?.close())

  it('warns, naming what runs per replica meanwhile; the store still decides readiness', async () => {
    const { check } = await redisCheck(app)
    expect(check).toMatchObject({ status: 'warn', detail: expect.stringMatching(/unreachable .*per replica/) })
  })
})
