// The trading repository on both backends, each as two replicas of one database (two PostgreSQL pools; on SQLite two
// runners over one connection): seeding, bars in and out, one dataset per symbol and timeframe, one order per idempotency key,
// no double spend on an account, one stored run per inputs, paging and removal, and /system/verify's checks.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Clock } from '../sched/clock.js'
import { generateSyntheticBars } from '../engines/trading/index.js'
import { Refusal } from '../http/refusal.js'
import { openStore } from '../store/index.js'
import { createPostgresPool, createPostgresSql, type PostgresSql } from '../store/postgres-sql.js'
import { migratePostgres } from '../store/postgres-store.js'
import type { Sql } from '../store/sql.js'
import { createTestDatabase, postgresUnavailable } from '../store/test-postgres.js'
import { createBarsCache } from './bars-cache.js'
import { barsSha256 } from './checksum.js'
import { createCycleRunner } from './cycle.js'
import { importCsvText } from './datasets.js'
import { createTradingRepository } from './repository.js'
import { strategyParamsOf } from './research/inputs.js'
import { createRunRecorder } from './runs.js'
import { fullCycleBody } from './schemas.js'
import { seedDatasetsOf, seedIfFirstStart } from './seed.js'
import { verifyAll } from './verify.js'

const NOW = Date.parse('2026-01-01T00:00:00Z')
const clock: Clock = { now: () => NOW }
const CSV = `Date,Open,High,Low,Close,Volume
2024-01-02,10,11,9.5,10.5,1000
2024-01-03,10.5,11.2,10.1,11,1200
2024-01-04,11,11.5,10.8,11.1,900
`

interface Replicas {
  replicas: [Sql, Sql]
  close(): Promise<void>
}

const backends: Array<{ name: string; unavailable: string | null; open(): Promise<Replicas> }> = [
  {
    // One connection for both: in one process, a second SQLite connection's busy wait would block the event loop the
    // first one's transaction needs to finish. Each replica still has its own repository, caches and in-flight map;
    // separate processes on one file are the crash test's (test/crash.test.ts).
    name: 'SQLite',
    unavailable: null,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'ncm-trading-repo-'))
      const store = await openStore({ path: join(dir, 'ncm.sqlite') })
      return {
        replicas: [store.sql, store.sql],
        close: async () => {
          store.close()
          rmSync(dir, { recursive: true, force: true })
        },
      }
    },
  },
  {
    name: 'PostgreSQL',
    unavailable: await postgresUnavailable(),
    async open() {
      const database = await createTestDatabase()
      const connect = (): PostgresSql => createPostgresSql(createPostgresPool({ connectionString: database.url, max: 4, connectionTimeoutMs: 5000 }))
      const replicas: [PostgresSql, PostgresSql] = [connect(), connect()]
      await migratePostgres(replicas[0])
      return {
        replicas,
        close: async () => {
          await Promise.all(replicas.map((sql) => sql.pool.end()))
          await database.drop()
        },
      }
    },
  },
]

/** A replica's cycle runner: its own repository, bars cache and in-flight map, as in its own process. */
function cycleRunnerOf(sql: Sql) {
  const repo = createTradingRepository(sql)
  const bars = createBarsCache(repo, 2 ** 24)
  const service = {
    bars: (dataset: Parameters<typeof bars.get>[0]) => bars.get(dataset, null),
    strategyParams: strategyParamsOf,
    researchAs: () => ({ maxEdgeSignal: () => Promise.reject(new Error('these cycles name their strategy: no search')) }) as never,
  }
  return createCycleRunner({ repo, service, clock: clock })
}

async function refusalOf(work: Promise<unknown>): Promise<Refusal> {
  try {
    await work
  } catch (err) {
    if (err instanceof Refusal) return err
    throw err
  }
  throw new Error('expected a refusal')
}

for (const backend of backends) {
  describe.skipIf(backend.unavailable !== null)(`trading repository on ${backend.name}, two replicas`, () => {
    let replicas: Replicas
    let a: Sql
    let b: Sql
    beforeAll(async () => {
      replicas = await backend.open()
      ;[a, b] = replicas.replicas
    })
    afterAll(async () => {
      await replicas?.close()
    })

    it('seeds once when both replicas start together, and reads every bar back exactly', async () => {
      const written = await Promise.all([seedIfFirstStart(a, 'small', NOW), seedIfFirstStart(b, 'small', NOW)])
      const symbols = seedDatasetsOf('small').map((d) => d.symbol)
      expect(written.filter((w) => w.length > 0)).toEqual([symbols])
      const repo = createTradingRepository(b)
      const datasets = await repo.datasets()
      expect(datasets.map((d) => d.symbol)).toEqual(symbols)
      for (const [i, { spec }] of seedDatasetsOf('small').entries()) {
        const stored = await repo.loadBars(datasets[i]!.id)
        const generated = generateSyntheticBars(spec)
        expect(stored.close).toEqual(generated.close)
        expect(stored.ts).toEqual(generated.ts)
        expect(barsSha256(stored)).toBe(datasets[i]!.sha256)
      }
      const all = await repo.loadBars(datasets[0]!.id)
      expect((await repo.loadBars(datasets[0]!.id, all.ts[10]!, all.ts[14]!)).ts).toEqual(all.ts.slice(10, 15))
    })

    it('stores one dataset per symbol and timeframe when imports race, and refuses other bars under it', async () => {
      const results = await Promise.all([a, b, a, b].map((sql) => importCsvText(sql, CSV, { symbol: 'RACE', origin: 'unit', now: NOW })))
      expect(results.filter((r) => r.created)).toHaveLength(1)
      expect(new Set(results.map((r) => r.dataset.id)).size).toBe(1)
      expect((await createTradingRepository(a).datasetsBySymbol('race')).map((d) => d.rows)).toEqual([3])
      const refusal = await refusalOf(importCsvText(b, CSV.replace('1200', '1300'), { symbol: 'RACE', origin: 'unit', now: NOW }))
      expect(refusal.code).toBe('conflict')
    })

    it('places one order per Idempotency-Key across replicas; the same key with another body is refused', async () => {
      const body = fullCycleBody.parse({ dataset: 'SYN-DAILY', strategy: 'buy_and_hold', account: 'keyed' })
      const runners = [cycleRunnerOf(a), cycleRunnerOf(b)]
      const answers = await Promise.all([0, 1, 0, 1].map((i) => runners[i]!.run(body, 'one-key', 'grant:keyed')))
      expect(answers.filter((x) => !x.replayed)).toHaveLength(1)
      const first = answers.find((x) => !x.replayed)!
      for (const answer of answers) expect({ ...answer.body, replayed: false }).toEqual(first.body)
      const repo = createTradingRepository(a)
      expect((await repo.ordersPage({ account_id: 'keyed', dataset_id: null }, null, 10)).length).toBe(1)
      const other = fullCycleBody.parse({ ...body, risk: { fraction: 0.02 } })
      expect((await refusalOf(runners[1]!.run(other, 'one-key', 'grant:keyed'))).code).toBe('conflict')
      // Another principal's same key is its own: a second order, not a replay or a conflict.
      expect((await runners[0]!.run(other, 'one-key', 'grant:someone-else')).replayed).toBe(false)
    })

    it('never spends an account\'s cash twice under concurrent cycles on both replicas; verify reconciles the ledger', async () => {
      const runners = [cycleRunnerOf(a), cycleRunnerOf(b)]
      const long = fullCycleBody.parse({ dataset: 'SYN-DAILY', strategy: 'buy_and_hold', account: 'busy', risk: { fraction: 0.05, max_position_pct: 100 } })
      const flat = fullCycleBody.parse({ dataset: 'SYN-DAILY', strategy: 'rsi_reversion', params: { period: 14, low: 1, high: 2 }, account: 'busy' })
      const other = fullCycleBody.parse({ dataset: 'SYN-15M', strategy: 'buy_and_hold', account: 'busy', risk: { fraction: 0.05, max_position_pct: 100 } })
      const bodies = [long, other, flat, long, other, long, flat, other]
      const answers = await Promise.all(bodies.map((body, i) => runners[i % 2]!.run(body, null, 'admin')))
      expect(answers.every((x) => x.status === 201)).toBe(true)
      const repo = createTradingRepository(b)
      const account = (await repo.account('busy'))!
      const entries = await repo.cashEntriesOf('busy')
      // Each cycle read the cash the one before it left: the ledger is one chain of balances.
      let balance = 0
      for (const entry of entries) {
        balance += entry.amount
        expect(entry.balance_after).toBeCloseTo(balance, 6)
      }
      expect(account.cash).toBeCloseTo(balance, 6)
      expect(account.cash).toBeGreaterThanOrEqual(0)
      const report = await verifyAll(a, repo, NOW)
      expect(report.checks.filter((c) => !c.ok)).toEqual([])
      expect(report.checks.map((c) => c.name)).toContain(a.dialect === 'sqlite' ? 'sqlite_integrity_check' : 'postgres_indexes_valid')
    })

    it('stores one run per inputs when replicas record the same run together, owned by each principal that stored it, and prunes past the retention', async () => {
      const repo = createTradingRepository(a)
      const dataset = (await repo.datasetsBySymbol('SYN-DAILY'))[0]!
      const recorders = [createRunRecorder(createTradingRepository(a), clock), createRunRecorder(createTradingRepository(b), clock, { retention: { maxRuns: 2, maxAgeDays: 0 } })]
      const fields = (n: number, equity: Array<[number, number]> | null) => ({
        strategy: 'sma_cross', params: { fast: n }, request: { n }, inputs: { n }, stats: { n }, equity, elapsedMs: 1.5,
      })
      const owners = ['client:10.0.0.1', 'grant:alice']
      const refs = await Promise.all([0, 1, 0, 1].map((i) => recorders[i]!.for(owners[i % 2]!).record('backtest', dataset, fields(1, null))))
      expect(refs.filter((r) => r.stored)).toHaveLength(1)
      expect(new Set(refs.map((r) => r.id)).size).toBe(1)
      for (const owner of owners) expect(await repo.runWithOwner(refs[0]!.id, owner)).toMatchObject({ owned: true })
      expect(await repo.runWithOwner(refs[0]!.id, 'grant:mallory')).toMatchObject({ owned: false })
      const again = await recorders[0]!.for(owners[0]!).record('backtest', dataset, fields(1, [[NOW, 100]]))
      expect(again).toMatchObject({ id: refs[0]!.id, stored: false })
      expect((await repo.runById(refs[0]!.id))!.equity).toBe(JSON.stringify([[NOW, 100]]))
      // An owner gives its ownership up; the run goes with its last owner.
      expect(await repo.transaction((tx) => tx.giveUpRun(refs[0]!.id, owners[0]!))).toEqual({ owned: true, deleted: false })
      expect(await repo.transaction((tx) => tx.giveUpRun(refs[0]!.id, owners[0]!))).toEqual({ owned: false, deleted: false })
      expect(await repo.runsPage({ owner: owners[1]!, kind: null, dataset_id: dataset.id, strategy: null }, null, 10)).toHaveLength(1)
      expect(await repo.runsPage({ owner: owners[0]!, kind: null, dataset_id: dataset.id, strategy: null }, null, 10)).toHaveLength(0)
      expect(await repo.transaction((tx) => tx.giveUpRun(refs[0]!.id, owners[1]!))).toEqual({ owned: true, deleted: true })
      expect(await repo.runById(refs[0]!.id)).toBeUndefined()
      for (let n = 2; n <= 4; n++) await recorders[1]!.for(owners[1]!).record('simulate', dataset, fields(n, null))
      const listed = await repo.runsPage({ owner: null, kind: null, dataset_id: dataset.id, strategy: 'sma_cross' }, null, 10)
      expect(listed).toHaveLength(2)
      expect(listed.map((r) => r.kind)).toEqual(['simulate', 'simulate'])
      expect(await repo.runCounts()).toMatchObject({ backtest: 0, simulate: 2 })
    })

    it('pages bars by keyset and removes a dataset with its runs in one transaction', async () => {
      const repo = createTradingRepository(b)
      const imported = await importCsvText(b, CSV, { symbol: 'GONE', origin: 'unit', now: NOW })
      const first = await repo.barsPage(imported.dataset.id, null, 2)
      expect(first.map((bar) => bar.close)).toEqual([10.5, 11, 11.1])
      const next = await repo.barsPage(imported.dataset.id, [first[1]!.ts], 2)
      expect(next.map((bar) => bar.close)).toEqual([11.1])
      await createRunRecorder(repo, clock).for('grant:unit').record('backtest', (await repo.datasetById(imported.dataset.id))!, {
        strategy: 'sma_cross', params: {}, request: {}, inputs: { gone: true }, stats: {}, equity: null, elapsedMs: 1,
      })
      expect(await repo.datasetReferences(imported.dataset.id)).toEqual({ runs: 1, signals: 0, cycles: 0, orders: 0, fills: 0, positions: 0 })
      const removed = await repo.transaction((tx) => tx.deleteDatasetWithRuns(imported.dataset.id))
      expect(removed).toEqual({ bars: 3, runs: 1, signals: 0 })
      expect(await repo.datasetById(imported.dataset.id)).toBeUndefined()
      expect((await repo.barsAudit(imported.dataset.id)).n).toBe(0)
    })
  })
}
