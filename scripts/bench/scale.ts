// bench:scale — issue #18's two figures in one run, interleaved rounds, medians with their spread:
//  1. throughput of the multi-replica test's write mix (scripts/cluster/write-mix.ts: paper full-cycles under new and
//     repeated Idempotency-Keys, pins, dataset imports) through nginx/ncm-hub-scale.conf over 1, 2 and 3 compiled
//     replicas on one PostgreSQL database and one Redis; acknowledged writes/s, and where the CPU went (replicas,
//     nginx, this load generator) against what the machine's cores could give;
//  2. the write path on each store: the same seeded writes one at a time, straight to one replica on PostgreSQL and
//     one on SQLite; ms per write and the PostgreSQL/SQLite ratio per round.
// Needs PostgreSQL (TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres; a database is made and dropped),
// Redis (TEST_REDIS_URL or redis://127.0.0.1:6379; a key prefix is used and deleted), Debian's nginx, `npm run build`.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Pool } from 'undici'
import { deletePrefix, openRedis, readyWithin, redisUnreachable } from '../../src/redis/connection.js'
import { createTestDatabase, postgresUnavailable } from '../../src/store/test-postgres.js'
import { nginxUnavailable, poolTo, startBalancer, startCluster, type Balancer } from '../cluster/cluster.js'
import { cpuMsOf, freePort, pidsMatching, startServer, stopServer, waitForHealth } from '../cluster/process.js'
import { Ledger, prng, writeStream } from '../cluster/write-mix.js'
import { machineCpuMs, median } from './lib.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8)
const WRITES = Number(process.env.BENCH_WRITES ?? 40)
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const SEED = process.env.BENCH_SEED !== undefined ? Number(process.env.BENCH_SEED) >>> 0 : (Math.random() * 2 ** 32) >>> 0
const IMPORT_SHARE = 0.1

const fmt = (x: number, d = 1) => x.toFixed(d)
const spreadOf = (xs: number[], d = 2) => `${fmt(median(xs), d)} (spread ${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`

const missing = nginxUnavailable() ?? (await postgresUnavailable()) ?? (await redisUnreachable(REDIS_URL))
if (missing) {
  console.error(`bench:scale needs PostgreSQL, Redis and nginx: ${missing}`)
  process.exit(1)
}

const database = await createTestDatabase()
const prefix = `ncm_bench_${randomBytes(6).toString('hex')}:`
const dir = mkdtempSync(join(tmpdir(), 'ncm-bench-scale-'))
const env = { REDIS_URL, REDIS_PREFIX: prefix, RATE_LIMIT_PER_MIN: '0' }
const cluster = await startCluster({ replicas: 3, env: { ...env, DATABASE_URL: database.url } })
const sqlitePort = await freePort()
const sqlite = startServer({
  ...env, HOST: '127.0.0.1', PORT: String(sqlitePort), DATA_DIR: join(dir, 'sqlite'), LOG_LEVEL: 'warn', MILL_THREADS: '1',
  MAX_EVENT_LOOP_DELAY_MS: '60000',
}, { compiled: true })
const balancers: Balancer[] = []
const pools: Pool[] = []

try {
  await waitForHealth(`http://127.0.0.1:${sqlitePort}/health`, { server: sqlite, timeoutMs: 60_000 })
  // nginx over the first 1 and 2 replicas beside the cluster's own over all 3: the same config, fewer upstreams.
  const ports = cluster.replicas.map((r) => r.port)
  for (const n of [1, 2]) balancers.push(await startBalancer(ports.slice(0, n), join(dir, `nginx-${n}`)))
  balancers.push(cluster.balancer)
  const lbPools = balancers.map((b) => poolTo(b.url, CONNECTIONS))
  const pgPool = poolTo(cluster.replicas[0]!.url, 1)
  const sqlitePool = poolTo(`http://127.0.0.1:${sqlitePort}`, 1)
  pools.push(...lbPools, pgPool, sqlitePool)

  console.log(
    `machine: ${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${ROUNDS} interleaved rounds, ` +
      `medians (spread); seed ${SEED} (BENCH_SEED)`,
  )

  /** Writes refused or failed, by status (transport errors as 0), over the whole run: printed, never hidden. */
  const failures = new Map<number, number>()
  /**
   * Runs the write mix. A write that fails is counted by its status and not acknowledged (throughput counts only
   * acknowledged writes); anything else the ledger finds wrong (a key that ran twice, a wrong replay) stops the bench.
   */
  const run = async (pool: Pool, tag: string, rng: ReturnType<typeof prng>, workers: number, stop: (l: Ledger) => boolean) => {
    const ledger = new Ledger()
    const excused = ({ status }: { status?: number }) => {
      failures.set(status ?? 0, (failures.get(status ?? 0) ?? 0) + 1)
      return true
    }
    await writeStream(pool, { ledger, rng, tag, round: 0, workers, importShare: IMPORT_SHARE, excused, stop: () => stop(ledger) })
    if (ledger.problems.length) throw new Error(`${tag}: ${ledger.problems.slice(0, 5).join('\n')}`)
    return { ledger, acknowledged: ledger.writes - ledger.excusedFailures }
  }

  const pids = () => [...cluster.replicas.map((r) => r.server!.child.pid!), ...balancers.map((b) => b.process.pid!)]
  const throughput: Record<number, number[]> = { 1: [], 2: [], 3: [] }
  const cpu: Record<number, Array<{ replicas: number; nginx: number; client: number; postgres: number; machine: number }>> = { 1: [], 2: [], 3: [] }
  /** CPU ms of the PostgreSQL backends serving this bench's database (they name it in their process title). */
  const postgresCpu = () => new Map(pidsMatching(` ${database.name} `).map((pid) => [pid, cpuMsOf(pid)]))
  const spentSince = (before: Map<number, number>) => {
    let ms = 0
    for (const [pid, now] of postgresCpu()) ms += now - (before.get(pid) ?? 0)
    return ms
  }
  const latency = { sqlite: [] as number[], postgres: [] as number[] }

  // Warm-up: each path once (JIT, pools, the first PostgreSQL plans).
  await run(lbPools[2]!, `warm-${SEED}`, prng(SEED), CONNECTIONS, (l) => l.writes >= 50)
  await run(sqlitePool, `warm-${SEED}`, prng(SEED), 1, (l) => l.writes >= 20)

  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [3, 2, 1] : [1, 2, 3]
    for (const n of order) {
      const before = pids().map(cpuMsOf)
      const clientBefore = process.cpuUsage()
      const machineBefore = machineCpuMs().busy
      const postgresBefore = postgresCpu()
      const started = performance.now()
      const deadline = started + SECONDS * 1000
      const { acknowledged } = await run(lbPools[n - 1]!, `tp-${SEED}-${round}-${n}`, prng(SEED + round * 7 + n), CONNECTIONS, () => performance.now() > deadline)
      const elapsed = (performance.now() - started) / 1000
      const spent = pids().map((pid, i) => cpuMsOf(pid) - before[i]!)
      const client = process.cpuUsage(clientBefore)
      throughput[n]!.push(acknowledged / elapsed)
      cpu[n]!.push({
        replicas: spent.slice(0, 3).reduce((a, b) => a + b, 0) / 1000 / elapsed,
        nginx: spent.slice(3).reduce((a, b) => a + b, 0) / 1000 / elapsed,
        client: (client.user + client.system) / 1e6 / elapsed,
        postgres: spentSince(postgresBefore) / 1000 / elapsed,
        machine: (machineCpuMs().busy - machineBefore) / 1000 / elapsed,
      })
    }
    // The same seeded writes, one at a time, on each store (order alternating).
    for (const store of round % 2 ? (['postgres', 'sqlite'] as const) : (['sqlite', 'postgres'] as const)) {
      const started = performance.now()
      await run(store === 'postgres' ? pgPool : sqlitePool, `lat-${SEED}-${round}-${store}`, prng(SEED ^ (round + 1)), 1, (l) => l.writes >= WRITES)
      latency[store].push((performance.now() - started) / WRITES)
    }
    process.stderr.write(`\rround ${round + 1}/${ROUNDS}`)
  }
  process.stderr.write('\n')

  console.log(`\n1. the write mix through nginx (${CONNECTIONS} connections, ${SECONDS} s per slot; full-cycles, pins, ${IMPORT_SHARE * 100}% imports), acknowledged writes/s`)
  console.log(`   replicas  writes/s                      vs 1 replica              cores busy: replicas  PostgreSQL  nginx  load generator  whole machine (of ${availableParallelism()})`)
  for (const n of [1, 2, 3]) {
    const ratio = throughput[n]!.map((x, i) => x / throughput[1]![i]!)
    const c = cpu[n]!
    const col = (pick: (x: (typeof c)[number]) => number, width: number) => fmt(median(c.map(pick)), 2).padStart(width)
    console.log(
      `   ${String(n).padEnd(9)} ${spreadOf(throughput[n]!, 1).padEnd(29)} ${(n === 1 ? '—' : `${spreadOf(ratio)}×`).padEnd(25)} ` +
        `${col((x) => x.replicas, 20)}  ${col((x) => x.postgres, 10)}  ${col((x) => x.nginx, 5)}  ${col((x) => x.client, 14)}  ${col((x) => x.machine, 13)}`,
    )
  }
  const machine = median(cpu[3]!.map((x) => x.machine))
  const ours = median(cpu[3]!.map((x) => x.replicas + x.postgres + x.nginx + x.client))
  console.log(
    `   with 3 replicas the machine was ${fmt(machine, 2)} of ${availableParallelism()} cores busy, ${fmt(ours, 2)} of them this bench's processes (PostgreSQL's backends included): ` +
      (machine >= availableParallelism() * 0.9
        ? 'the cores were saturated, so more replicas cannot add throughput here (each writes through the same two cores)'
        : 'the cores had room: the replicas, not the machine, set the pace'),
  )

  const failed = [...failures].map(([status, count]) => `${count} × ${status || 'transport error'}`).join(', ')
  console.log(`   writes not acknowledged over the whole run: ${failed || 'none'}`)

  console.log(`\n2. the write path, one write at a time straight to one replica (${WRITES} seeded writes per slot, the same on both stores), ms per write`)
  console.log(`   SQLite       ${spreadOf(latency.sqlite)}`)
  console.log(`   PostgreSQL   ${spreadOf(latency.postgres)}`)
  console.log(`   PostgreSQL / SQLite  ${spreadOf(latency.postgres.map((x, i) => x / latency.sqlite[i]!))}×`)
} finally {
  await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)))
  for (const b of balancers.slice(0, 2)) await b.stop()
  await cluster.stop()
  await stopServer(sqlite)
  await database.drop()
  const redis = openRedis(REDIS_URL, 'commands')
  await readyWithin(redis, 10_000)
  await deletePrefix(redis, prefix)
  redis.disconnect()
  rmSync(dir, { recursive: true, force: true })
}
