// A dataset's bars on both databases: read back exactly across pages, audited window by window, written and read with
// turns of the event loop between pages (SQLite answers in microtasks: without them a load was one long stall).
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../store/index.js'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import { turnsDuring } from '../store/test-turns.js'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../engines/trading/index.js'
import type { Bars } from '../engines/trading/types.js'
import { barsSha256 } from './checksum.js'
import { createTradingRepository, type TradingRepository } from './repository.js'

const stores = testStores()
afterAll(() => stores.cleanup())

/** 20k bars: ten read pages and three audit windows. */
const BARS = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: 20_000 })

const insert = (repo: TradingRepository, bars: Bars) => repo.transaction((tx) => tx.insertDataset({
  symbol: 'PAGED', timeframe: '1m', source: 'import', sha256: barsSha256(bars), seed: null, generator: null,
  origin: 'unit', created_at: '2026-01-01T00:00:00.000Z',
}, bars))

describe.each(TEST_BACKENDS)('dataset bars on %s', (backend) => {
  let store: Store
  let repo: TradingRepository
  beforeEach(async () => {
    store = await stores.open(backend)
    repo = createTradingRepository(store.sql)
  })

  it('writes and reads 20k bars back exactly, the loop turning between pages both ways', async () => {
    const written = await turnsDuring(() => insert(repo, BARS))
    expect(written.value.rows).toBe(20_000)
    const read = await turnsDuring(() => repo.loadBars(written.value.id))
    for (const column of ['ts', 'open', 'high', 'low', 'close', 'volume'] as const) {
      expect(read.value[column]).toEqual(BARS[column])
      // In shared memory: a mill task is handed them without a copy.
      expect(read.value[column].buffer).toBeInstanceOf(SharedArrayBuffer)
    }
    // SQLite: 78 batches of 256, a turn every 8; 10 pages of 2048 and 6 joined columns, a turn between two of each.
    expect(written.turns).toBeGreaterThanOrEqual(9)
    expect(read.turns).toBeGreaterThanOrEqual(9 + 5)
    const [from, to] = [BARS.ts[2040]!, BARS.ts[6150]!]
    expect((await repo.loadBars(written.value.id, from, to)).ts).toEqual(BARS.ts.slice(2040, 6151))
    let pages = 0
    for await (const page of repo.barPages(written.value.id)) {
      expect(page.close).toEqual(BARS.close.slice(pages * 2048, (pages + 1) * 2048))
      pages++
    }
    expect(pages).toBe(10)
  })

  it('audits count, first and last time and OHLC violations window by window as one statement would', async () => {
    const { id } = await insert(repo, BARS)
    const whole = (await store.sql.get<{ n: number; first_ts: number; last_ts: number }>(
      'SELECT count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts FROM bars WHERE dataset_id = ?', [id]))!
    const audited = await turnsDuring(() => repo.barsAudit(id))
    expect(audited.value).toEqual({
      n: 20_000, first_ts: Number(whole.first_ts), last_ts: Number(whole.last_ts), violations: { n: 0, first_ts: null },
    })
    expect(Number(whole.n)).toBe(20_000)
    expect(audited.turns).toBeGreaterThanOrEqual(2)
    expect((await repo.barsAudit(id + 1))).toEqual({ n: 0, first_ts: null, last_ts: null, violations: { n: 0, first_ts: null } })
  })

  it.runIf(backend === 'sqlite')('finds OHLC violations in every window (bars written past the CHECK constraints)', async () => {
    const { id } = await insert(repo, BARS)
    store.sqlite!.pragma('ignore_check_constraints = ON')
    for (const i of [19_000, 100, 9000]) {
      await store.sql.run('UPDATE bars SET low = high * 2 WHERE dataset_id = ? AND ts = ?', [id, BARS.ts[i]!])
    }
    store.sqlite!.pragma('ignore_check_constraints = OFF')
    expect((await repo.barsAudit(id)).violations).toEqual({ n: 3, first_ts: BARS.ts[100]! })
  })
})
