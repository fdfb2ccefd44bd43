// Issue #25 items 3 and 4 end to end: two compiled replicas on one PostgreSQL database and one Redis prefix take a mix
// of research jobs, cancels (0–60 ms after submission, through the other replica) and pin writes while a side
// connection cuts every connection of theirs to PostgreSQL again and again (pg_terminate_backend) and one replica is
// SIGKILLed mid-mix. Afterwards: every acknowledged pin reads back; every accepted job ended succeeded or cancelled,
// none failed for a transient fault; no cancelled job's run is stored and every succeeded one's is, once. Skipped with
// the reason printed without PostgreSQL or Redis (a failure under CI=true).
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { buildApp } from '../../src/app.js'
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../../src/store/test-postgres.js'
import { createPostgresPool, createPostgresSql } from '../../src/store/postgres-sql.js'
import { freePort, requireCompiledServer, startServer, stopServer, waitForHealth, type ServerProcess } from '../process.js'
import { redisForTests, testPrefix, until } from '../redis/helper.js'
import { testConfig } from '../helper.js'

const redis = await redisForTests()
const missing = redis.available ? await postgresUnavailable() : redis.reason
const JOBS = 16
const PINS = 20

interface Replica { base: string; server: ServerProcess }
interface Accepted { id: string; seed: number; cancelled: boolean }

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await request(base + path, {
    method: method as 'GET', headersTimeout: 30_000, bodyTimeout: 30_000,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, body: text.startsWith('{') ? JSON.parse(text) : null, retryAfter: res.headers['retry-after'] }
}

describe.skipIf(missing !== null)('connection cuts and a replica SIGKILL during jobs, cancels and writes (PostgreSQL + Redis)', () => {
  const prefix = missing ? '' : testPrefix()
  let database: TestDatabase
  const replicas: Replica[] = []
  const errors: string[] = []

  beforeAll(async () => {
    requireCompiledServer()
    database = await createTestDatabase()
    // Migrated and seeded small once here (the replicas find it seeded and start at once).
    const seeding = await buildApp({ config: testConfig({ DATABASE_URL: database.url, DATABASE_POOL_MAX: '2' }), logger: false, tradingSeed: 'small' })
    await seeding.ready()
    await seeding.close()
    for (let i = 0; i < 2; i++) {
      const port = await freePort()
      const server = startServer({
        DATABASE_URL: database.url, DATABASE_POOL_MAX: '4', REDIS_URL: redis.url, REDIS_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1',
        RATE_LIMIT_PER_MIN: '0', MAX_EVENT_LOOP_DELAY_MS: '60000', MILL_QUEUE: '64', JOBS_PER_CLIENT: '64', LOG_LEVEL: 'error',
      }, { compiled: true })
      replicas.push({ base: `http://127.0.0.1:${port}`, server })
      await waitForHealth(`http://127.0.0.1:${port}/health`, { server, timeoutMs: 90_000 })
    }
  }, 180_000)

  afterAll(async () => {
    for (const { server } of replicas) {
      errors.push(...server.stdout().split('\n').filter((line) => /"level":(50|60)/.test(line)))
      await stopServer(server)
    }
    if (errors.length) console.log(`faults test: the replicas logged ${errors.length} errors:\n${errors.slice(0, 10).join('\n')}`)
    await database?.drop()
  })

  it('ends with every acknowledged write present, no cancelled job\'s run stored, no accepted job failed', async () => {
    // The side connection: one of its own, which it never cuts (its own backend is left out).
    const sidePool = createPostgresPool({ connectionString: database.url, max: 1, connectionTimeoutMs: 5000 })
    const side = createPostgresSql(sidePool)
    let cutting = true
    let cuts = 0
    const cutter = (async () => {
      while (cutting) {
        const cut = await side.all(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ncm-hub' AND pid <> pg_backend_pid()")
        cuts += cut.length
        await sleep(150 + Math.random() * 250)
      }
    })()

    /** A client that does what a Retry-After asks: the same request (same Idempotency-Key) again. */
    const persist = async (base: () => string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
      for (let attempt = 0; attempt < 40; attempt++) {
        const res = await call(base(), method, path, body, headers).catch(() => null)
        if (res && res.status !== 503 && res.status !== 502) return res
        await sleep(200)
      }
      throw new Error(`${method} ${path}: no answer but 503 after 40 tries`)
    }
    const alive = () => replicas.filter((r) => r.server.alive())
    const pick = (i: number) => () => { const a = alive(); return a[i % a.length]!.base }

    const startedAt = Date.now()
    const accepted: Accepted[] = []
    const pins = new Set<string>()
    const statuses: number[] = []
    const work: Array<Promise<void>> = []
    for (let i = 0; i < JOBS; i++) {
      work.push((async () => {
        const seed = 1000 + i
        const body = { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 }, horizon: 30, paths: 200, method: 'bootstrap', seed }
        const res = await persist(pick(i), 'POST', '/api/v11/trading/simulate', body, { prefer: 'respond-async', 'idempotency-key': `faults-${seed}` })
        statuses.push(res.status)
        if (res.status !== 202) return
        const job = { id: res.body.id as string, seed, cancelled: i % 2 === 0 }
        accepted.push(job)
        if (job.cancelled) {
          await sleep(Math.random() * 60)
          await persist(pick(i + 1), 'DELETE', `/api/v11/jobs/${job.id}`, undefined)
        }
      })())
    }
    for (let i = 0; i < PINS; i++) {
      work.push((async () => {
        await sleep(i * 40)
        // A pin is content-addressed: writing it again after a 503 (or a dead replica) is the same write.
        const res = await persist(pick(i), 'POST', '/api/v1/pin', { content: `faults pin ${i} ${prefix}` })
        statuses.push(res.status)
        if (res.status === 200) pins.add(res.body.data.digest)
      })())
    }
    // One replica dies under the mix; BullMQ's stalled check hands its running jobs to the other.
    await sleep(600)
    await stopServer(replicas[1]!.server, 'SIGKILL')
    await Promise.all(work)
    const mixedAt = Date.now()
    const survivor = replicas[0]!.base

    const finals = new Map<string, { state: string; refuse: { code: string; reason: string } | null }>()
    await until('every accepted job final', async () => {
      for (const job of accepted) {
        if (finals.has(job.id)) continue
        const res = await call(survivor, 'GET', `/api/v11/jobs/${job.id}`).catch(() => null)
        if (res?.status === 200 && ['succeeded', 'failed', 'cancelled'].includes(res.body.state)) finals.set(job.id, res.body)
      }
      return finals.size === accepted.length ? true : undefined
    }, 1200)
    cutting = false
    await cutter
    console.log(`faults test: mix ${mixedAt - startedAt} ms, jobs final ${Date.now() - mixedAt} ms later`)
    const runs = await side.all<{ request: string }>("SELECT request FROM runs WHERE kind = 'simulate'")
    await sidePool.end()

    const runSeeds = runs.map((r) => (JSON.parse(r.request) as { seed: number }).seed)
    const byState = (state: string) => accepted.filter((j) => finals.get(j.id)!.state === state)
    console.log(`faults test: ${cuts} connections cut; ${accepted.length} jobs accepted (${byState('succeeded').length} succeeded, ` +
      `${byState('cancelled').length} cancelled, ${byState('failed').length} failed), ${pins.size} pins acknowledged, ` +
      `answers ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])))}`)

    expect(cuts).toBeGreaterThan(0)
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([])
    expect(accepted.length).toBe(JOBS)
    // No accepted job failed (a transient fault is retried, an interrupted run re-run).
    expect(byState('failed').map((j) => finals.get(j.id)!.refuse)).toEqual([])
    // A cancelled job stored no run; a succeeded one stored its run once.
    for (const job of byState('cancelled')) expect(runSeeds, `cancelled job ${job.id} (seed ${job.seed})`).not.toContain(job.seed)
    for (const job of byState('succeeded')) expect(runSeeds.filter((s) => s === job.seed), `succeeded job ${job.id}`).toHaveLength(1)
    expect(runSeeds.length).toBe(byState('succeeded').length)
    // Every acknowledged pin reads back, verified.
    expect(pins.size).toBe(PINS)
    for (const digest of pins) {
      const read = await call(survivor, 'POST', '/api/v1/pin', { digest })
      expect(read.status, digest).toBe(200)
      expect(read.body.data.verified).toBe(true)
    }
  }, 180_000)
})
