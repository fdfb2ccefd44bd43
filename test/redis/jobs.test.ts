// The BullMQ job queue with replicas in one process (each its own Fastify host, mill, Redis connections and BullMQ
// worker; they share only the SQLite file and the Redis prefix): a job submitted on one replica is read, watched and
// waited on from another, cancelled from a replica that does not run it, and an Idempotency-Key holds across them;
// a submission while Redis is away is kept and runs once it is back.
// The multi-process proof with SIGKILL is replicas.test.ts.
import { JsonBytes } from '../../src/json/bytes.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
import { buildTestApp, json } from '../helper.js'
import { readEvents, type SseEvent } from '../sse.js'
import { redisForTests, testPrefix, until } from './helper.js'
import { relayTo } from './relay.js'

const asData = (answer: unknown): unknown => (answer instanceof JsonBytes ? answer.value() : answer)

const redis = await redisForTests()


describe.skipIf(!redis.available)('jobs across replicas (REDIS_URL: BullMQ dispatch, Redis events)', () => {
  const prefix = testPrefix()
  const dir = mkdtempSync(join(tmpdir(), 'ncm-bullmq-'))
  const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, DATABASE_PATH: join(dir, 'hub.sqlite') }
  const replicas: FastifyInstance[] = []
  afterAll(async () => {
    await Promise.all(replicas.map((app) => app.close()))
    rmSync(dir, { recursive: true, force: true })
  })
  const replica = async () => {
    const app = await buildTestApp({ env })
    replicas.push(app)
    return app
  }
  const submitSat = async (app: FastifyInstance, holes: number, headers: Record<string, string> = {}) => {
    const res = await app.inject({
      method: 'POST', url: '/api/v1/sat', headers: { prefer: 'respond-async', ...headers },
      payload: { dimacs: pigeonholeDimacs(holes), want_model: false, timeout_ms: 600_000 },
    })
    return { status: res.statusCode, job: json(res).data }
  }
  const runningOn = (id: string) => until(`job ${id} running on a replica`, async () => {
    for (const app of replicas) if ((await app.jobs.stats()).running === 1 && (await app.jobs.get(id))?.state === 'running') return app
    return undefined
  })

  it('submitted on one replica, run on one: the other streams its progress and final event and waits on it (the sync path)', async () => {
    const a = await replica()
    const b = await replica()
    expect(a.jobs.backend).toBe('bullmq')
    const { status, job } = await submitSat(a, 8)
    expect(status).toBe(202)
    const runner = await runningOn(job.id)
    const watcher = runner === a ? b : a
    const base = await watcher.listen({ host: '127.0.0.1', port: 0 })
    const waited = watcher.jobs.settled(job.id)
    const res = await request(`${base}/api/v1/jobs/${job.id}/events`)
    expect(res.statusCode).toBe(200)
    const progress: SseEvent[] = []
    const { events } = await readEvents(res.body, (e) => { if (e.event === 'progress') progress.push(e) })
    const final = events.at(-1)!
    expect(final.event).toBe('succeeded')
    expect(final.data.result.status).toBe('UNSAT')
    // Progress published by the runner reached the watcher (SAT reports its counters as it searches).
    expect(progress.some((e) => e.data.job.state === 'running' && (e.data.job.progress.counters.conflicts ?? 0) > 0)).toBe(true)

    const settled = await waited
    expect(settled.ok).toBe(true)
    const answer = json(await watcher.inject(`/api/v1/jobs/${job.id}/result`)).data
    expect(settled.ok && asData(settled.result)).toEqual(answer)
    expect(json(await runner.inject(`/api/v1/jobs/${job.id}/result`)).data).toEqual(answer)
    expect(json(await watcher.inject(`/api/v1/jobs/${job.id}`)).data.state).toBe('succeeded')
  })

  it('cancelled through a replica that is not running it: the run stops and the job ends cancelled on every replica', async () => {
    const [a, b] = replicas
    await replica()
    const { job } = await submitSat(b!, 11)
    const runner = await runningOn(job.id)
    const other = replicas.find((app) => app !== runner)!
    const res = await other.inject({ method: 'DELETE', url: `/api/v1/jobs/${job.id}` })
    expect(json(res).data.state).toBe('cancelled')
    for (const app of [a!, b!, runner]) expect((await app.jobs.get(job.id))!.state).toBe('cancelled')
    // The runner's own run was aborted by the message (not merely marked in the row): its slot is free again.
    await until('the runner freed its slot', async () => ((await runner.jobs.stats()).running === 0 ? true : undefined))
    expect(json(await a!.inject(`/api/v1/jobs/${job.id}/result`)).refuse.code).toBe('conflict')
  })

  it('an Idempotency-Key sent to two replicas at once makes one job; another input under it is refused on a third', async () => {
    const [a, b, c] = replicas
    const headers = { 'idempotency-key': `key-${prefix}` }
    const [one, two] = await Promise.all([submitSat(a!, 6, headers), submitSat(b!, 6, headers)])
    expect(one.job.id).toBe(two.job.id)
    const other = await c!.inject({
      method: 'POST', url: '/api/v1/sat', headers: { prefer: 'respond-async', ...headers },
      payload: { dimacs: pigeonholeDimacs(5), want_model: false },
    })
    expect(other.statusCode).toBe(409)
    const settled = await c!.jobs.settled(one.job.id)
    expect(settled.ok).toBe(true)
    const list = json(await c!.inject('/api/v1/jobs?op=sat&limit=100')).data.jobs as Array<{ id: string }>
    expect(list.filter((j) => j.id === one.job.id)).toHaveLength(1)
  })

  it('the health reports name the bullmq backend', async () => {
    const health = json(await replicas[0]!.inject('/api/v1/health')).data
    expect(health.scale_out).toMatchObject({ queue_backend: 'bullmq', redis: { reachable: true } })
  })
})

describe.skipIf(!redis.available)('jobs while Redis cannot answer', () => {
  const prefix = testPrefix()
  const dir = mkdtempSync(join(tmpdir(), 'ncm-bullmq-outage-'))
  let app: FastifyInstance | null = null
  let relay: Awaited<ReturnType<typeof relayTo>> | null = null
  afterAll(async () => {
    await app?.close()
    await relay?.cut()
    rmSync(dir, { recursive: true, force: true })
  })

  it('a submission is stored and acknowledged (202, queued); once Redis is back it is dispatched and runs', async () => {
    relay = await relayTo(new URL(redis.url))
    app = await buildTestApp({ env: { REDIS_URL: relay.url, REDIS_PREFIX: prefix, DATABASE_PATH: join(dir, 'hub.sqlite') } })
    await relay.cut()
    const res = await app.inject({
      method: 'POST', url: '/api/v1/sat', headers: { prefer: 'respond-async' },
      payload: { dimacs: pigeonholeDimacs(4), want_model: false },
    })
    expect(res.statusCode).toBe(202)
    const { id } = json(res).data
    expect((await app.jobs.get(id))!.state).toBe('queued')
    expect(json(await app.inject('/api/v1/health')).data.scale_out.redis.reachable).toBe(false)

    await relay.restore()
    const settled = await app.jobs.settled(id)
    expect(settled.ok).toBe(true)
    expect(settled.ok && (asData(settled.result) as { status: string }).status).toBe('UNSAT')
  })
})
