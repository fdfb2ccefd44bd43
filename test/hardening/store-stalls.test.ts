// Issue #13: reads and writes of many bars in the store turn the event loop every few milliseconds, over a real socket
// with a health monitor beside them — a bars-cache miss on a 400k-bar dataset, /system/verify of it, and the largest
// CSV import accepted (CSV_MAX_ROWS). Each held the loop 0.15–1.8 s in one stretch before.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { createTradingRepository } from '../../src/trading/repository.js'
import { listeningTestApp } from '../helper.js'
import { storeDataset } from './large-dataset.js'
import { besideHealth, pastStartReport, postRaw } from './monitor.js'

// A file, as in production (verify's whole-database pragmas run on a worker thread then), and a cache too small for the
// dataset: every backtest on it reads its bars from the database again.
const dir = mkdtempSync(join(tmpdir(), 'ncm-store-stalls-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const host = listeningTestApp({
  env: { DATABASE_PATH: join(dir, 'hub.sqlite'), BARS_CACHE_BYTES: String(2 ** 20), VERIFY_CACHE_MS: '0', CSV_MAX_ROWS: '250000' },
})


const BIG = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: 400_000 })

describe('store work is cut into steps of a few milliseconds', () => {
  beforeAll(async () => {
    await storeDataset(host.app, 'BIG', '1m', BIG)
    await pastStartReport(host.app)
  }, 120_000)

  it('a backtest that misses the bars cache reads 400k bars in pages', async () => {
    const body = JSON.stringify({
      dataset: 'BIG', strategy: 'sma_cross', params: { fast: 5, slow: 20 },
      from: new Date(BIG.ts[1000]!).toISOString(), to: new Date(BIG.ts[3000]!).toISOString(),
    })
    // Warm-up on the small seed: the first backtest of a process compiles its code paths (100–160 ms on the loop).
    expect((await postRaw(host.base, '/api/v11/trading/backtest', JSON.stringify({ dataset: 'SYN-DAILY', strategy: 'sma_cross' }))).status).toBe(200)
    for (let round = 0; round < 2; round++) {
      const { value: res, health } = await besideHealth(host.base, `backtest, bars-cache miss on 400k bars (${round + 1})`,
        () => postRaw(host.base, '/api/v11/trading/backtest', body))
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.dataset.bars).toBe(2001)
      expect(health.failures).toBe(0)
    }
  })

  it('/system/verify checks 400k bars in pages and windows', async () => {
    const { value: report, health } = await besideHealth(host.base, 'verify with 400k bars', async () => {
      const res = await request(`${host.base}/api/v11/system/verify`)
      return (await res.body.json()) as { ok: boolean; checks: Array<{ name: string; subject: string | null; ok: boolean; detail: string }> }
    })
    expect(report.ok, JSON.stringify(report.checks.filter((c) => !c.ok))).toBe(true)
    expect(report.checks.find((c) => c.name === 'dataset_ohlc_sanity' && c.subject?.includes('BIG'))?.detail).toMatch(/^400000 bars/)
    expect(health.failures).toBe(0)
  })

  it('a 250k-row CSV import (CSV_MAX_ROWS) writes its bars in steps, all or nothing, health answering throughout', async () => {
    const rows = ['Date,Open,High,Low,Close,Volume']
    // Cents and whole units (rounding keeps low ≤ open, close ≤ high): 11 MB, under LARGE_BODY_LIMIT_BYTES.
    const at = (column: Float64Array, i: number, digits = 2) => column[i]!.toFixed(digits)
    for (let i = 0; i < 250_000; i++) {
      rows.push(`${946684800 + i * 60},${at(BIG.open, i)},${at(BIG.high, i)},${at(BIG.low, i)},${at(BIG.close, i)},${at(BIG.volume, i, 0)}`)
    }
    const csv = rows.join('\n') + '\n' // joined before watching: 11 MB of the client's own work
    const { value: res, health } = await besideHealth(host.base, '250k-row CSV import',
      () => postRaw(host.base, '/api/v11/datasets?symbol=WIDE&timeframe=1m', csv, 'text/csv'))
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.dataset.rows).toBe(250_000)
    expect(health.failures).toBe(0)
    // A bad last row: nothing of the 250k is kept.
    rows[250_000] = `${946684800 + 250_000 * 60},1,2,3,4,5`
    const bad = await postRaw(host.base, '/api/v11/datasets?symbol=WIDE2&timeframe=1m', rows.join('\n') + '\n', 'text/csv')
    expect(bad.status).toBe(400)
    expect(bad.body.detail).toMatch(/^the CSV was not imported: line 250001/)
    expect((await createTradingRepository(host.app.store.sql).datasetByKey('WIDE2', '1m'))).toBeUndefined()
  })
})
