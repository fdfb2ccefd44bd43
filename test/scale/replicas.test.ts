// Issue #18 end to end: three compiled replicas on one fresh PostgreSQL database and one Redis key prefix, behind
// Debian's nginx running nginx/ncm-hub-scale.conf; every request below goes through nginx unless a scenario needs
// one replica in particular. Skipped with the reason printed when PostgreSQL, Redis or nginx is missing, except under
// CI=true, where a missing PostgreSQL or Redis is a failure.
//
// Every request carries its own client address (X-Forwarded-For, trusted: TRUST_PROXY=true, as behind nginx), so the
// shared rate limit counts each scenario's client apart and only the rate-limit scenario meets it.
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, type Pool } from 'undici'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../../src/store/test-postgres.js'
import { redisForTests, testPrefix } from '../redis/helper.js'
import { readEvents, type SseEvent } from '../sse.js'
import { checkWrites, Ledger, prng, writeStream, type Failure } from '../../scripts/cluster/write-mix.js'
import { nginxUnavailable, poolTo, startCluster, type Cluster } from '../../scripts/cluster/cluster.js'
import { cpuMsOf } from '../../scripts/cluster/process.js'

const SEED = process.env.SCALE_SEED !== undefined ? Number(process.env.SCALE_SEED) >>> 0 : (Math.random() * 2 ** 32) >>> 0
/** Requests a client may send a minute (every replica's RATE_LIMIT_PER_MIN). */
const RATE_LIMIT = 40
/** Concurrent writers, and the most writes the stream sends (it also stops once the killed replica is back). */
const WRITERS = 6
const MAX_WRITES = 600
const ADMIN_TOKEN = randomBytes(24).toString('base64url')

const missing = (await postgresUnavailable()) ?? (await redisForTests().then((r) => (r.available ? null : r.reason))) ?? nginxUnavailable()
if (missing) console.warn(`skipping the multi-replica test: ${missing}`)

let clients = 0
/** A client address of its own: 10.0.0.0/8 counted up. */
const newClient = () => {
  const n = ++clients
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
}
const as = (client: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': client, authorization: `Bearer ${ADMIN_TOKEN}`, ...extra })

describe.skipIf(missing !== null)('three replicas on one PostgreSQL database and one Redis, behind nginx', () => {
  const prefix = missing ? '' : testPrefix()
  let database: TestDatabase | null = null
  let cluster: Cluster | null = null
  let pool: Pool | null = null
  const context = () => `multi-replica test seed ${SEED} (SCALE_SEED=${SEED} repeats the workload)`

  beforeAll(async () => {
    console.log(`multi-replica test: seed ${SEED}`)
    database = await createTestDatabase()
    const redis = await redisForTests()
    cluster = await startCluster({
      replicas: 3,
      env: {
        DATABASE_URL: database.url, REDIS_URL: redis.url, REDIS_PREFIX: prefix,
        ADMIN_TOKEN, RATE_LIMIT_PER_MIN: String(RATE_LIMIT),
      },
    })
    pool = poolTo(cluster.url, WRITERS * 2)
  }, 120_000)

  afterAll(async () => {
    // What the replicas logged as errors, for the record of a failure (a passing run logs none).
    const errors = cluster?.errors() ?? []
    if (errors.length) console.log(`multi-replica test: the replicas logged ${errors.length} errors:\n${errors.slice(0, 20).join('\n')}`)
    await pool?.destroy().catch(() => undefined)
    await cluster?.stop()
    await database?.drop()
  })

  const json = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const res = await request(url, {
      method: init.method ?? 'GET',
      headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    })
    const text = await res.body.text()
    return { status: res.statusCode, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, any>) : {} }
  }

  it('a grant revoked through one replica is refused by the other two on their next request', async () => {
    const [one, two, three] = cluster!.replicas
    const client = newClient()
    const issued = await json(`${one!.url}/api/v1/grant`, {
      method: 'POST', headers: as(client), body: { subject: 'scale-test', scopes: ['admin:read'], ttl_s: 600 },
    })
    expect(issued.status, JSON.stringify(issued.body)).toBe(200)
    const { id, token } = issued.body.data as { id: string; token: string }
    const withGrant = { 'x-forwarded-for': client, authorization: `Bearer ${token}` }
    // The grant list needs admin:read: a cheap read that the grant's scope decides.
    const list = (url: string) => json(`${url}/api/v1/admin/grants?limit=1`, { headers: withGrant })
    for (const replica of [one!, two!, three!]) expect((await list(replica.url)).status).toBe(200)

    const revoked = await json(`${one!.url}/api/v1/grant`, { method: 'POST', headers: as(client), body: { revoke: id } })
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200)
    expect(revoked.body.data).toMatchObject({ action: 'revoked', id, already_revoked: false })
    // At once: no replica may answer from a cache of the grant.
    for (const replica of [two!, three!, one!]) {
      const refused = await list(replica.url)
      expect(refused.status, `replica ${replica.index}: ${JSON.stringify(refused.body)}`).toBe(401)
      expect(refused.body.refuse?.reason).toMatch(/revoked/)
    }
    expect((await list(cluster!.url)).status).toBe(401)
  })

  it(`${RATE_LIMIT} + 10 requests of one client spread over the replicas: exactly 10 refused`, async () => {
    const client = newClient()
    const before = cluster!.accessLog().length
    const statuses: number[] = []
    for (let i = 0; i < RATE_LIMIT + 10; i++) {
      const res = await pool!.request({ path: '/api/v1/health', method: 'GET', headers: { 'x-forwarded-for': client } })
      await res.body.dump()
      statuses.push(res.statusCode)
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(10)
    expect(statuses.filter((s) => s === 200)).toHaveLength(RATE_LIMIT)
    const lines = (await cluster!.settledLog((l) => l.length >= before + RATE_LIMIT + 10)).slice(before)
    const replicasHit = new Set(lines.flatMap((l) => l.upstreams).map((u) => cluster!.replicaAt(u)?.index))
    expect([...replicasHit].sort(), 'nginx spread the requests over every replica').toEqual([0, 1, 2])
  })

  // Full cycles on one account from several replicas take the account's transaction lock (src/trading/cycle.ts); a
  // write that still loses its serializable race TRANSACTION_ATTEMPTS times is refused 503 occupied, and is sent again
  // as a client would (write-mix.ts, counted). A write cut off by the kill (nginx's 502) is the only excused failure.
  it('concurrent writes with repeated keys, pins and imports survive a replica SIGKILLed mid-stream and restarted', async () => {
    const ledger = new Ledger()
    const rng = prng(SEED)
    const victim = rng.int(0, 2)
    let stop = false
    /** From the kill until the replica is dead: a write in flight then may be cut off (nginx answers 502). */
    const kill = { from: Infinity, to: Infinity }
    const excused = (f: Failure) => f.status === 502 && f.startedAt <= kill.to && f.endedAt >= kill.from
    const headers = () => as(newClient())
    const stream = writeStream(pool!, {
      ledger, rng, tag: String(SEED), round: 0, workers: WRITERS, importShare: 0.1, headers, excused,
      stop: () => stop || ledger.writes >= MAX_WRITES,
    })
    // Let the stream get going on all three, then kill one under it; it comes back on the same port.
    const started = Date.now()
    while (ledger.writes < 60 && Date.now() - started < 20_000) await sleep(50)
    kill.from = Date.now()
    await cluster!.kill(victim)
    kill.to = Date.now()
    const killedAtWrite = ledger.writes
    await cluster!.restart(victim)
    const restartedAtWrite = ledger.writes
    // Some writes after the restart too, then stop.
    while (ledger.writes < restartedAtWrite + 60 && ledger.writes < MAX_WRITES) await sleep(50)
    stop = true
    await stream

    await checkWrites(pool!, { ledger, rng, label: `after replica ${victim} was killed and restarted`, rounds: 'all', concurrency: 4, headers })
    console.log(
      `multi-replica test: seed ${SEED}: ${ledger.writes} writes (${killedAtWrite} before the kill of replica ${victim}, ` +
        `${restartedAtWrite - killedAtWrite} while it was down or starting), ${ledger.excusedFailures} cut off by the kill; ` +
        `${ledger.cycles.size} cycles (${ledger.orderOwner.size} orders), ${ledger.pins.size} pins, ${ledger.datasets.size} datasets acknowledged; ` +
        `${ledger.repeatedKeyAcks} repeated-key and ${ledger.repeatedImportAcks} repeated-import answers; ` +
        `${ledger.occupiedRetries} sent again after 503 occupied; ` +
        `checked ${ledger.replaysChecked} replays, ${ledger.pinsChecked} pins, ${ledger.datasetsChecked} datasets`,
    )
    expect(ledger.problems, context()).toEqual([])
    expect(ledger.cycles.size, context()).toBeGreaterThan(0)
    expect(ledger.pins.size, context()).toBeGreaterThan(0)
    expect(ledger.datasets.size, context()).toBeGreaterThan(0)
    expect(ledger.repeatedKeyAcks, context()).toBeGreaterThan(0)
    // The writes reached every replica (else this proved nothing about replicas).
    const writers = new Set(cluster!.accessLog().filter((l) => l.method === 'POST' && l.status < 300).flatMap((l) => l.upstreams))
    expect(writers.size, context()).toBe(3)
  }, 120_000)

  it('a job whose replica is killed finishes on another; SSE clients on the other replicas and through nginx get its end', async () => {
    const client = newClient()
    // A search that cannot finish: it runs its whole budget, then answers UNKNOWN. After the kill it runs once more.
    const submitted = await json(`${cluster!.url}/api/v1/sat`, {
      method: 'POST', headers: as(client, { prefer: 'respond-async' }),
      body: { dimacs: pigeonholeDimacs(12), want_model: false, timeout_ms: 6000 },
    })
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202)
    const id = (submitted.body.data ?? submitted.body).id as string

    const runner = await replicaRunning(cluster!)
    const others = cluster!.replicas.filter((r) => r !== runner)
    const streams = [...others.map((r) => r.url), cluster!.url].map((base) => watch(`${base}/api/v1/jobs/${id}/events`, client))
    // Each stream has said where the job stands before the kill (through nginx too: unbuffered).
    await Promise.all(streams.map((s) => s.first))
    await cluster!.kill(runner.index)
    const ends = await Promise.all(streams.map((s) => s.done))
    console.log(`multi-replica test: job ${id} ran on replica ${runner.index} (killed); streams reconnected ${ends.map((e) => e.reconnects).join(', ')} times`)
    // The streams held by the surviving replicas never broke: the end reached them from the replica that re-ran the job.
    expect(ends.slice(0, 2).map((e) => e.reconnects)).toEqual([0, 0])
    for (const [i, { events }] of ends.entries()) {
      const last = events.at(-1)
      expect(last?.event, `stream ${i}: ${JSON.stringify(events.map((e) => e.event))}`).toBe('succeeded')
      // The search's own answer (its budget ran out, so UNKNOWN; UNSAT were it ever fast enough).
      const result = last?.data.result as { status?: string; data?: { status?: string } } | undefined
      expect(['UNKNOWN', 'UNSAT']).toContain(result?.status ?? result?.data?.status)
    }
    const job = await json(`${others[0]!.url}/api/v1/jobs/${id}`, { headers: as(client) })
    expect(job.body.data?.state ?? job.body.state).toBe('succeeded')
    await cluster!.restart(runner.index)
  }, 120_000)
})

const FINAL_EVENTS = new Set(['succeeded', 'failed', 'cancelled'])

/**
 * Follows a job's event stream as EventSource does: when the stream breaks before a final event (its replica died
 * under it) it reconnects with Last-Event-ID. `first` resolves at the first event, `done` with every event and the
 * number of reconnections.
 */
function watch(url: string, client: string) {
  let seen: () => void = () => undefined
  const first = new Promise<void>((resolve) => (seen = resolve))
  const done = (async () => {
    const events: SseEvent[] = []
    for (let reconnects = 0; reconnects < 20; reconnects++) {
      const lastId = events.at(-1)?.id
      try {
        const res = await request(url, {
          // The job is the admin's (it submitted it): its events are read with the same credential.
          headers: { ...as(client), accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          bodyTimeout: 120_000,
        })
        if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`)
        await readEvents(res.body, (e) => {
          events.push(e)
          seen()
        })
      } catch (err) {
        if (!(err instanceof Error) || /answered/.test(err.message)) throw err
        // The stream broke (its replica died, or nginx cut it): reconnect, as EventSource does after `retry`.
      }
      if (FINAL_EVENTS.has(events.at(-1)?.event ?? '')) return { events, reconnects }
      await sleep(500)
    }
    throw new Error(`${url}: no final event after 20 reconnections (${events.map((e) => e.event).join(', ')})`)
  })()
  return { first, done }
}

/**
 * The replica whose process is spending CPU: the one running the job's search (the others are idle). Read from
 * /proc (user + system time of the whole process, every thread), sampled until one stands out.
 */
async function replicaRunning(cluster: Cluster) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const live = cluster.replicas.filter((r) => r.server?.alive())
    const before = live.map((r) => cpuMsOf(r.server!.child.pid!))
    await sleep(1000)
    const spent = live.map((r, i) => cpuMsOf(r.server!.child.pid!) - before[i]!)
    const order = spent.map((t, i) => [t, i] as const).sort((a, b) => b[0] - a[0])
    // A search holds a core whenever it gets one (1 s of a core is 1,000 ms), and even on a loaded machine it takes
    // several times what an idle replica's timers spend.
    if (order[0]![0] >= 100 && order[0]![0] >= 3 * Math.max(1, order[1]![0])) return live[order[0]![1]]!
  }
  throw new Error('no replica is running the job (no process spent markedly more CPU than the others)')
}
