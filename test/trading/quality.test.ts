// Data gates at import: every dataset carries its quality report (gaps, zero volume, stale closes, outliers, the
// timeframe and timestamps it was read with), ?strict=true refuses one with any issue naming the first line, and the
// formats users have (kline dumps, epoch seconds or milliseconds, ISO with offsets) are read and stated.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTradingApp({ env: { CSV_MAX_ROWS: '400' } })
})
afterAll(async () => {
  await app?.close()
})

const DAY = 86_400_000
const importCsv = (csv: string, query: string) =>
  app.inject({ method: 'POST', url: `/api/v11/datasets?${query}`, payload: csv, headers: { 'content-type': 'text/csv' } })
function created(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(201)
  return json(res).dataset
}

/** Weekday daily bars from 2024-01-01 with a gently moving close; `edit` may change any row (null drops it). */
function weekdays(count: number, edit: (i: number, row: number[]) => number[] | null = (_i, row) => row): string {
  const lines = ['Date,Open,High,Low,Close,Volume']
  let i = 0
  for (let t = Date.UTC(2024, 0, 1); i < count; t += DAY) {
    const d = new Date(t).getUTCDay()
    if (d === 0 || d === 6) continue
    const close = 100 + Math.sin(i / 4) * 3 + i * 0.05
    const row = edit(i, [close, close + 1, close - 1, close, 1000 + i])
    i++
    if (row) lines.push(`${new Date(t).toISOString().slice(0, 10)},${row.join(',')}`)
  }
  return lines.join('\n') + '\n'
}

describe('quality at import', () => {
  it('reports a clean dataset as clean: weekends and a single holiday are not gaps', async () => {
    const q = created(await importCsv(weekdays(120, (i, row) => (i === 30 ? null : row)), 'symbol=CLEAN')).quality
    expect(q).toMatchObject({
      timeframe: '1d', timestamps: { format: 'date', zone: 'UTC', normalised_to: 'UTC' },
      gaps: { count: 0, largest_s: null, first: null }, closed_days: 1,
      zero_volume: { count: 0, volume: 'present' }, stale: { count: 0 }, outliers: { count: 0 }, issues: 0, first_issue: null,
    })
  })

  it('reports every quality problem with its first line, and strict refuses the dataset naming it', async () => {
    // Line numbers: the header is line 1, bar i is line i + 2 until a dropped row.
    const csv = weekdays(200, (i, row) => {
      if (i >= 40 && i <= 42) return null // three weekdays missing: a gap between bar 39 (line 41) and bar 43 (line 42)
      if (i === 60) return [row[0]!, row[1]!, row[2]!, row[3]!, 0] // zero volume at line 59
      if (i >= 80 && i < 87) return [101, 102, 100, 101, 500] // a stale run of 7 closes from line 79
      if (i === 120) return [row[0]! * 3, row[0]! * 3 + 1, row[0]! * 3 - 1, row[0]! * 3, 900] // an outlier at line 119
      return row
    })
    const q = created(await importCsv(csv, 'symbol=DIRTY')).quality
    expect(q.gaps).toMatchObject({ count: 1, largest_s: 6 * 86_400, first: { after: '2024-02-23T00:00:00.000Z', before: '2024-02-29T00:00:00.000Z', line: 42 } })
    expect(q.zero_volume).toMatchObject({ count: 1, first: { line: 59 } })
    expect(q.stale).toMatchObject({ count: 1, longest: 7, first: { line: 79 } })
    expect(q.outliers.count).toBeGreaterThanOrEqual(2) // the jump up and the jump back
    expect(q.outliers.first.line).toBe(119)
    expect(q.issues).toBe(1 + 1 + 1 + q.outliers.count)
    expect(q.first_issue).toEqual({ kind: 'gap', line: 42, time: '2024-02-29T00:00:00.000Z' })
    const refused = await importCsv(csv, 'symbol=DIRTY2&strict=true')
    expect(refused.statusCode).toBe(400)
    expect(json(refused).detail).toMatch(/^strict import refused: line 42 \(2024-02-29T00:00:00.000Z\) starts a gap issue; 1 gaps, 1 zero-volume bars, 1 stale runs/)
    expect((await app.inject('/api/v11/datasets/DIRTY2')).statusCode).toBe(404)
    // The JSON form takes strict too; a clean dataset passes it.
    const clean = await app.inject({ method: 'POST', url: '/api/v11/datasets', payload: { symbol: 'CLEAN2', strict: true, csv: weekdays(50) } })
    expect(clean.statusCode, clean.body).toBe(201)
  })

  it('reads an exchange kline dump (no header, 12 columns, open times in ms or µs) and states the format', async () => {
    const rows = (unit: 'ms' | 'us') => Array.from({ length: 48 }, (_v, i) => {
      const open = Date.UTC(2024, 4, 1) + i * 3_600_000
      const close = 60_000 + i * 10
      const t = unit === 'ms' ? String(open) : `${open}000`
      return [t, close, close + 50, close - 50, close + 5, 12.5, open + 3_599_999, 750_000, 321, 6.1, 366_000, 0].join(',')
    }).join('\n')
    const ms = created(await importCsv(rows('ms'), 'symbol=BTCUSDT'))
    expect(ms).toMatchObject({ timeframe: '1h', rows: 48, first_ts: '2024-05-01T00:00:00.000Z' })
    expect(ms.quality.timestamps).toEqual({ format: 'epoch_ms', zone: 'UTC', normalised_to: 'UTC' })
    expect(ms.quality.gaps.count).toBe(0)
    const us = created(await importCsv(rows('us'), 'symbol=BTCUSDT-US'))
    expect(us.quality.timestamps.format).toBe('epoch_us')
    expect(us.sha256).toBe(ms.sha256)
  })

  it('detects epoch seconds, states ISO offsets, and refuses one file mixing epoch units', async () => {
    const secs = ['ts,open,high,low,close', ...Array.from({ length: 30 }, (_v, i) => `${1_700_000_000 + i * 60},10,11,9,10.${i % 10 + 1}`)].join('\n')
    expect(created(await importCsv(secs, 'symbol=SECS')).quality).toMatchObject({ timeframe: '1m', timestamps: { format: 'epoch_s' }, zero_volume: { volume: 'absent' } })
    const offsets = ['Date,Open,High,Low,Close', ...Array.from({ length: 30 }, (_v, i) => {
      const local = new Date(Date.UTC(2024, 2, 20 + i, 9)).toISOString().slice(0, 19)
      return `${local}${i < 11 ? '+01:00' : '+02:00'},10,11,9,10.${i % 9 + 1}`
    })].join('\n')
    const q = created(await importCsv(offsets, 'symbol=EUROPE')).quality
    expect(q.timestamps).toEqual({ format: 'iso', zone: 'mixed: +01:00, +02:00', normalised_to: 'UTC' })
    const mixed = `ts,open,high,low,close\n1700000000,10,11,9,10\n1700000060000,10,11,9,10\n`
    const refused = await importCsv(mixed, 'symbol=MIXED')
    expect(refused.statusCode).toBe(400)
    expect(json(refused).detail).toMatch(/line 3: .*epoch ms, but earlier rows are epoch s/)
  })

  it('counts rows as the reader splits them: a \\r-only file over CSV_MAX_ROWS is refused (JSON body)', async () => {
    const csv = weekdays(450).replaceAll('\n', '\r')
    const res = await app.inject({ method: 'POST', url: '/api/v11/datasets', payload: { symbol: 'CRONLY', csv } })
    expect(res.statusCode, res.body).toBe(422)
    expect(json(res).detail).toMatch(/more than 400 rows/)
    expect(created(await app.inject({ method: 'POST', url: '/api/v11/datasets', payload: { symbol: 'CRONLY', csv: weekdays(300).replaceAll('\n', '\r') } })).rows).toBe(300)
  })

  it('reports quality on synthetic datasets too, and lists it', async () => {
    const listed = json(await app.inject('/api/v11/datasets?limit=1')).datasets[0]
    expect(listed.quality).toMatchObject({ timestamps: { format: 'generated' }, first_issue: null })
  })
})
