import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { Refusal } from '../http/refusal.js'
import type { Store } from '../store/index.js'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import { REPO_ROOT } from '../version.js'
import { barsSha256 } from './checksum.js'
import { importCsvFile, importCsvText, inferTimeframe, kthSmallest, resolveDataset } from './datasets.js'
import { createTradingRepository } from './repository.js'
import { seedDatasetsOf, seedIfFirstStart } from './seed.js'
import { verifyAll } from './verify.js'

const DATA = join(REPO_ROOT, '..', 'shared', 'data')
const NOW = Date.parse('2026-01-01T00:00:00Z')
const CSV = `Date,Open,High,Low,Close,Volume
2024-01-02,10,11,9.5,10.5,1000
2024-01-03,10.5,11.2,10.1,11,1200
2024-01-04,11,11.5,10.8,11.1,900
`

const stores = testStores()
afterAll(() => stores.cleanup())

async function refusalOf(fn: () => unknown): Promise<Refusal> {
  try {
    await fn()
  } catch (err) {
    if (err instanceof Refusal) return err
    throw err
  }
  throw new Error('expected a refusal')
}

// The same tests on SQLite and, when it answers, PostgreSQL: each test starts from an empty migrated store.
describe.each(TEST_BACKENDS)('trading datasets on %s', (backend) => {
  let store: Store
  beforeEach(async () => { store = await stores.open(backend) })
  const count = async (table: string) => (await store.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n

  describe('CSV import', () => {
    it('stores the bars with their checksum and inferred timeframe, and a repeat import is a no-op', async () => {
      const first = await importCsvText(store.sql, CSV, { symbol: 'TEST', origin: 'unit', now: NOW })
      expect(first.created).toBe(true)
      expect(first.dataset).toMatchObject({ symbol: 'TEST', timeframe: '1d', source: 'import', rows: 3, first_ts: '2024-01-02T00:00:00.000Z', seed: null })
      const repo = createTradingRepository(store.sql)
      expect(barsSha256(await repo.loadBars(first.dataset.id))).toBe(first.dataset.sha256)
      const again = await importCsvText(store.sql, CSV, { symbol: 'TEST', origin: 'unit', now: NOW })
      expect(again).toMatchObject({ created: false, dataset: { id: first.dataset.id } })
      expect(await count('bars')).toBe(3)
    })

    it('reports a bad row by its line number and writes nothing', async () => {
      const bad = CSV.replace('2024-01-03,10.5,11.2,10.1,11,1200', '2024-01-03,10.5,10.6,10.1,11,1200') // high below close
      const refusal = await refusalOf(() => importCsvText(store.sql, bad, { symbol: 'BAD', origin: 'unit', now: NOW }))
      expect(refusal.code).toBe('invalid_input')
      expect(refusal.message).toMatch(/line 3/)
      expect(refusal.options.issues![0]).toMatchObject({ path: 'line 3' })
      expect(await count('datasets')).toBe(0)
      expect(await count('bars')).toBe(0)
    })

    it('refuses other bars under an existing symbol and timeframe, and bad symbols', async () => {
      await importCsvText(store.sql, CSV, { symbol: 'TEST', origin: 'unit', now: NOW })
      const other = CSV.replace('1200', '1300')
      expect((await refusalOf(() => importCsvText(store.sql, other, { symbol: 'TEST', origin: 'unit', now: NOW }))).code).toBe('conflict')
      expect((await refusalOf(() => importCsvText(store.sql, CSV, { symbol: 'no spaces', origin: 'unit', now: NOW }))).code).toBe('invalid_input')
      expect((await refusalOf(() => importCsvText(store.sql, CSV, { symbol: 'OK', timeframe: 'daily', origin: 'unit', now: NOW }))).code).toBe('invalid_input')
    })

    it('resolves datasets by id, symbol (any case) and symbol@timeframe, naming the choices otherwise', async () => {
      const d = (await importCsvText(store.sql, CSV, { symbol: 'TEST', origin: 'unit', now: NOW })).dataset
      await importCsvText(store.sql, CSV, { symbol: 'TEST', timeframe: '1h', origin: 'unit', now: NOW })
      const repo = createTradingRepository(store.sql)
      expect((await resolveDataset(repo, d.id)).id).toBe(d.id)
      expect((await resolveDataset(repo, String(d.id))).id).toBe(d.id)
      expect((await resolveDataset(repo, 'test@1d')).id).toBe(d.id)
      const ambiguous = await refusalOf(() => resolveDataset(repo, 'TEST'))
      expect(ambiguous.options.hints!.valid_choices).toEqual(['TEST@1d', 'TEST@1h'])
      const missing = await refusalOf(() => resolveDataset(repo, 'NOPE'))
      expect(missing.code).toBe('not_found')
      expect(missing.options.hints!.valid_choices).toHaveLength(2)
    })

    it('infers timeframes from the median spacing', async () => {
      const days = Float64Array.from([0, 1, 2, 5, 6, 7], (d) => d * 86_400_000) // a weekend gap
      expect(inferTimeframe(days)).toBe('1d')
      expect(inferTimeframe(Float64Array.from([0, 1, 2, 3], (i) => i * 900_000))).toBe('15m')
      expect(inferTimeframe(Float64Array.from([0, 1, 2], (i) => i * 3_600_000))).toBe('1h')
    })

    it('finds the median gap by partitioning, as a numeric sort would place it', () => {
      let seed = 7
      const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
      for (const n of [1, 2, 3, 10, 101, 1000, 4096]) {
        for (const spread of [3, 1e6]) {
          const values = Float64Array.from({ length: n }, () => Math.floor(next() * spread))
          const sorted = Float64Array.from(values).sort()
          for (const k of [0, Math.floor(n / 2), n - 1]) expect(kthSmallest(Float64Array.from(values), k)).toBe(sorted[k])
        }
      }
    })
  })

  describe.skipIf(!existsSync(DATA))('real data import (needs ../shared/data)', () => {
    it('imports GOOG.csv and EURUSD.csv as they are', async () => {
      const goog = await importCsvFile(store.sql, join(DATA, 'GOOG.csv'), { symbol: 'GOOG', now: NOW })
      expect(goog.dataset).toMatchObject({ symbol: 'GOOG', timeframe: '1d', rows: 2148, first_ts: '2004-08-19T00:00:00.000Z', origin: 'GOOG.csv' })
      const eurusd = await importCsvFile(store.sql, join(DATA, 'EURUSD.csv'), { symbol: 'EURUSD', now: NOW })
      expect(eurusd.dataset).toMatchObject({ symbol: 'EURUSD', timeframe: '1h', rows: 5000, first_ts: '2017-04-19T09:00:00.000Z' })
      const lines = readFileSync(join(DATA, 'GOOG.csv'), 'utf8').trim().split('\n')
      const lastClose = Number(lines.at(-1)!.split(',')[4])
      const repo = createTradingRepository(store.sql)
      const bars = await repo.loadBars(goog.dataset.id)
      expect(bars.close[bars.close.length - 1]).toBe(lastClose)
      expect((await verifyAll(store.sql, repo, NOW)).ok).toBe(true)
    })
  })

  describe('seeding', () => {
    it('writes the small synthetic set once, labelled with seed and generator', async () => {
      expect(await seedIfFirstStart(store.sql, 'small', NOW)).toEqual(seedDatasetsOf('small').map((d) => d.symbol))
      const repo = createTradingRepository(store.sql)
      const rows = await repo.datasets()
      expect(rows.every((d) => d.source === 'synthetic' && d.seed !== null && d.generator !== null)).toBe(true)
      expect(await seedIfFirstStart(store.sql, 'small', NOW)).toEqual([])
      expect(await repo.datasetCount()).toBe(rows.length)
    })

    it('plans 10+ years of daily bars and 100k+ intraday bars for a full seed, and nothing for none', async () => {
      const full = seedDatasetsOf('full')
      const daily = full.find((d) => d.timeframe === '1d')!
      expect(daily.spec.bars).toBeGreaterThanOrEqual(2520)
      expect(full.some((d) => d.timeframe !== '1d' && d.spec.bars >= 100_000)).toBe(true)
      expect(seedDatasetsOf('none')).toEqual([])
      expect(await seedIfFirstStart(store.sql, 'none', NOW)).toEqual([])
    })
  })

  describe('verify', () => {
    it('passes on seeded data and catches a tampered bar and a tampered cash balance', async () => {
      await seedIfFirstStart(store.sql, 'small', NOW)
      const repo = createTradingRepository(store.sql)
      expect(await verifyAll(store.sql, repo, NOW)).toMatchObject({ ok: true, summary: { failed: 0 } })

      await store.sql.run('UPDATE bars SET close = close * 1.0001 WHERE dataset_id = 1 AND ts = (SELECT max(ts) FROM bars WHERE dataset_id = 1)')
      await store.sql.run("INSERT INTO accounts (id, currency, initial_cash, cash, created_at) VALUES ('paper', 'USD', 1000, 1001, 'x')")
      const report = await verifyAll(store.sql, repo, NOW)
      expect(report.ok).toBe(false)
      const failed = report.checks.filter((c) => !c.ok).map((c) => `${c.name} ${c.subject}`)
      expect(failed).toContain('dataset_checksum #1 SYN-DAILY@1d')
      expect(failed).toContain('ledger_reconciliation account paper')
    })
  })
})
