// SSE_STREAMS_PER_CLIENT with REDIS_URL: one count per client across replicas (src/redis/stream-leases.ts). Two hosts
// sharing a Redis prefix: the client's streams on both count against one cap; a stream closed on one replica frees a
// slot on the other; the leases of a replica that died (stopped renewing, never released) lapse on their own.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
import { openRedis, readyWithin } from '../../src/redis/connection.js'
import { sharedStreamSlots } from '../../src/redis/stream-leases.js'
import { createStreamSlots } from '../../src/http/stream-slots.js'
import { Refusal } from '../../src/http/refusal.js'
import { buildTestApp } from '../helper.js'
import { redisForTests, testPrefix, until } from './helper.js'

const redis = await redisForTests()

describe.skipIf(!redis.available)('job event streams per client, across replicas', () => {
  const prefix = testPrefix()
  const dir = mkdtempSync(join(tmpdir(), 'ncm-sse-cap-'))
  const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, DATABASE_PATH: join(dir, 'hub.sqlite'), SSE_STREAMS_PER_CLIENT: '2' }
  const replicas: FastifyInstance[] = []
  afterAll(async () => {
    await Promise.all(replicas.map((app) => app.close()))
    rmSync(dir, { recursive: true, force: true })
  })

  it('two streams on two replicas fill the cap of 2; the third is refused on either; closing one frees a slot on the other', async () => {
    const bases: string[] = []
    for (let i = 0; i < 2; i++) {
      const app = await buildTestApp({ env })
      replicas.push(app)
      bases.push(await app.listen({ host: '127.0.0.1', port: 0 }))
    }
    const [a, b] = bases as [string, string]
    // PHP(12, 11) runs far longer than the test: the job stays running while streams are held.
    const submitted = await request(`${a}/api/v1/sat`, {
      method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ dimacs: pigeonholeDimacs(12), want_model: false, timeout_ms: 60_000 }),
    })
    expect(submitted.statusCode).toBe(202)
    const job = ((await submitted.body.json()) as { data: { id: string } }).data
    const events = (base: string) => request(`${base}/api/v1/jobs/${job.id}/events`)

    const onA = await events(a)
    const onB = await events(b)
    expect([onA.statusCode, onB.statusCode]).toEqual([200, 200])
    for (const base of [a, b]) {
      const over = await events(base)
      expect(over.statusCode).toBe(422)
      expect(over.headers['retry-after']).toBe('5')
      expect(((await over.body.json()) as { refuse: { code: string; hints: unknown } }).refuse)
        .toMatchObject({ code: 'over_limit', hints: { limit: 'SSE_STREAMS_PER_CLIENT', value: 2 } })
    }

    onB.body.destroy()
    await until('the stream closed on b gives its slot back', async () => (replicas[1]!.jobStreams.open() === 0 ? true : undefined))
    const again = await events(a)
    expect(again.statusCode).toBe(200)

    await request(`${a}/api/v1/jobs/${job.id}`, { method: 'DELETE' }).then((res) => res.body.dump())
    await Promise.all([onA.body.text(), again.body.text()])
  })

  it('a replica that dies holding streams stops renewing: its leases lapse, while a live replica\'s renewed ones hold', async () => {
    const clients = [openRedis(redis.url, 'commands'), openRedis(redis.url, 'commands')]
    try {
      for (const c of clients) expect(await readyWithin(c, 5000)).toBe(true)
      // Long enough that a renewal (every third of it) is not missed on a loaded machine.
      const leaseMs = 2000
      const slots = (i: number) => sharedStreamSlots(clients[i]!, prefix, 2, createStreamSlots(2), { leaseMs })
      const dying = slots(0)
      const living = slots(1)
      await dying.take('10.0.0.1')
      await living.take('10.0.0.2')
      await living.take('10.0.0.2')
      dying.stop() // killed: no release, no renewal
      await expect(living.take('10.0.0.1')).resolves.toBeTypeOf('function') // one of two held: room for one
      await expect(living.take('10.0.0.1')).rejects.toBeInstanceOf(Refusal)
      await new Promise((r) => setTimeout(r, leaseMs * 2.5))
      // The dead replica's lease lapsed; the living replica renewed its own three.
      await expect(living.take('10.0.0.1')).resolves.toBeTypeOf('function')
      await expect(living.take('10.0.0.1')).rejects.toBeInstanceOf(Refusal)
      await expect(living.take('10.0.0.2')).rejects.toBeInstanceOf(Refusal)
      living.stop()
    } finally {
      for (const c of clients) c.disconnect()
    }
  })
})
