// POST /api/v11/datasets: CSV and JSON imports, all-or-nothing validation, scope trading:write, body limit.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { hashToken } from '../../src/access/tokens.js'
import { REPO_ROOT } from '../../src/version.js'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'

const DATA = join(REPO_ROOT, '..', 'shared', 'data')
const SMALL_CSV = `Date,Open,High,Low,Close,Volume
2024-01-02,10,11,9.5,10.5,1000
2024-01-03,10.5,11.2,10.1,11,1200
2024-01-04,11,11.5,10.8,11.1,900
2024-01-05,11.1,11.6,10.9,11.4,950
`

const importCsv = (app: FastifyInstance, csv: string, query: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/v11/datasets?${query}`, payload: csv, headers: { 'content-type': 'text/csv', ...headers } })

describe('dataset import (open host)', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTradingApp({ seed: 'none', env: { LARGE_BODY_LIMIT_BYTES: '200000' } })
  })
  afterAll(async () => {
    await app?.close()
  })

  const datasetCount = async () => json(await app.inject('/api/v11/datasets')).datasets.length as number

  it('imports a text/csv body and a JSON body, and a repeat import is answered 200 without a new dataset', async () => {
    const csv = await importCsv(app, SMALL_CSV, 'symbol=ACME&timeframe=1d')
    expect(csv.statusCode, csv.body).toBe(201)
    const created = json(csv)
    expect(created).toMatchObject({ created: true, dataset: { symbol: 'ACME', timeframe: '1d', rows: 4, source: 'import', origin: 'http' } })
    expect(created.id).toBe(created.dataset.id)
    const again = await importCsv(app, SMALL_CSV, 'symbol=ACME&timeframe=1d')
    expect(again.statusCode).toBe(200)
    expect(json(again)).toMatchObject({ created: false, id: created.id })

    const viaJson = await app.inject({ method: 'POST', url: '/api/v11/datasets', payload: { symbol: 'ACME2', csv: SMALL_CSV } })
    expect(viaJson.statusCode, viaJson.body).toBe(201)
    expect(json(viaJson).dataset.timeframe).toBe('1d') // inferred

    const bt = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: { dataset: created.id, strategy: 'buy_and_hold' } })
    expect(bt.statusCode, bt.body).toBe(200)
  })

  it('reports a bad row with its line number and writes nothing', async () => {
    const before = await datasetCount()
    const bad = SMALL_CSV.replace('2024-01-04,11,11.5,10.8,11.1,900', '2024-01-04,11,11.5,10.8,-11.1,900')
    const res = await importCsv(app, bad, 'symbol=BROKEN')
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const problem = json(res)
    expect(problem.detail).toMatch(/line 4/)
    expect(problem.errors[0]).toMatchObject({ path: 'line 4' })
    expect(problem.bad_rows[0]).toMatchObject({ line: 4, message: expect.stringMatching(/close/) })
    expect(await datasetCount()).toBe(before)
    const stats = json(await app.inject('/api/v11/db/stats'))
    expect(stats.tables.find((t: { name: string }) => t.name === 'bars').rows).toBe(8) // the two good imports only
  })

  it('refuses a CSV without a symbol, a body over the import limit, and an unsupported content type', async () => {
    expect(json(await importCsv(app, SMALL_CSV, 'timeframe=1d')).errors[0].path).toBe('querystring.symbol')
    const huge = SMALL_CSV + '2024-01-06,11,12,10,11,1\n'.repeat(10_000)
    const tooLarge = await importCsv(app, huge, 'symbol=HUGE')
    expect(tooLarge.statusCode).toBe(413)
    expect(json(tooLarge).code).toBe('payload_too_large')
    const xml = await app.inject({ method: 'POST', url: '/api/v11/datasets?symbol=X', payload: '<bars/>', headers: { 'content-type': 'application/xml' } })
    expect(xml.statusCode).toBe(415)
    expect(xml.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(json(xml).code).toBe('unsupported_media_type')
  })
})

describe.skipIf(!existsSync(DATA))('real data over HTTP (needs ../shared/data)', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTradingApp({ seed: 'none' })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('imports GOOG.csv as text/csv and EURUSD.csv as JSON, as they are, and backtests GOOG by symbol', async () => {
    const goog = await importCsv(app, readFileSync(join(DATA, 'GOOG.csv'), 'utf8'), 'symbol=GOOG&timeframe=1d')
    expect(goog.statusCode, goog.body).toBe(201)
    expect(json(goog).dataset).toMatchObject({ rows: 2148, first_ts: '2004-08-19T00:00:00.000Z' })
    const eurusd = await app.inject({
      method: 'POST', url: '/api/v11/datasets', payload: { symbol: 'EURUSD', timeframe: '1h', csv: readFileSync(join(DATA, 'EURUSD.csv'), 'utf8') },
    })
    expect(eurusd.statusCode, eurusd.body).toBe(201)
    expect(json(eurusd).dataset.rows).toBe(5000)
    const bt = await app.inject({
      method: 'POST', url: '/api/v11/trading/backtest',
      payload: { dataset: 'GOOG', strategy: 'sma_cross', params: { fast: 10, slow: 20 }, cash: 10_000, commission: 0.002 },
    })
    expect(bt.statusCode, bt.body).toBe(200)
    expect(json(bt).stats.start).toBe('2004-08-19T00:00:00.000Z')
    expect(json(await app.inject('/api/v11/system/verify')).ok).toBe(true)
  })
})

describe('dataset import with ADMIN_TOKEN set', () => {
  const ADMIN = 'admin-token-for-trading-tests-0123456789'
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTradingApp({ seed: 'none', env: { ADMIN_TOKEN: ADMIN } })
    const insert = 'INSERT INTO grants (id, subject, scopes, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)'
    await app.store.sql.run(insert, ['g-read', 'reader', JSON.stringify(['admin:read']), hashToken('reader-token'), '2025-01-01T00:00:00Z', '2999-01-01T00:00:00Z'])
    await app.store.sql.run(insert, ['g-write', 'writer', JSON.stringify(['trading:write']), hashToken('writer-token'), '2025-01-01T00:00:00Z', '2999-01-01T00:00:00Z'])
  })
  afterAll(async () => {
    await app?.close()
  })

  it('needs a bearer credential with scope trading:write', async () => {
    const anonymous = await importCsv(app, SMALL_CSV, 'symbol=SEC')
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.headers['www-authenticate']).toBe('Bearer')
    expect(json(anonymous).code).toBe('unauthorized')
    const reader = await importCsv(app, SMALL_CSV, 'symbol=SEC', { authorization: 'Bearer reader-token' })
    expect(reader.statusCode).toBe(403)
    expect(json(reader).code).toBe('forbidden')
    const writer = await importCsv(app, SMALL_CSV, 'symbol=SEC', { authorization: 'Bearer writer-token' })
    expect(writer.statusCode, writer.body).toBe(201)
    const admin = await importCsv(app, SMALL_CSV, 'symbol=SEC2', { authorization: `Bearer ${ADMIN}` })
    expect(admin.statusCode).toBe(201)
  })
})

describe('dataset import off the event loop', () => {
  it('parses an HTTP import in the mill, not on the event loop (a 250k-row CSV held the loop 2 s)', async () => {
    const app = await buildTradingApp({ seed: 'none' })
    const before = app.mill.stats().completed
    const res = await importCsv(app, SMALL_CSV, 'symbol=MILLED&timeframe=1d')
    expect(res.statusCode, res.body).toBe(201)
    expect(app.mill.stats().completed).toBe(before + 1)
    const bad = await importCsv(app, SMALL_CSV.replace('10.5,1000', 'x,1000'), 'symbol=MILLED2&timeframe=1d')
    expect(bad.statusCode).toBe(400)
    expect(json(bad).errors[0]).toMatchObject({ path: 'line 2' })
    expect(app.mill.stats().completed).toBe(before + 2)
    await app.close()
  })

  it('moves a text/csv body to the mill as its bytes, never decoded on the loop: the same bars, refusals and digest as the JSON form', async () => {
    const app = await buildTradingApp({ seed: 'none' })
    const tasks: string[] = []
    const handed: Array<{ csv: unknown; moved: number }> = []
    const run = app.mill.run.bind(app.mill)
    vi.spyOn(app.mill, 'run').mockImplementation(((task, payload, options) => {
      tasks.push(task)
      if (task === 'trading.csv') handed.push({ csv: (payload as { csv: unknown }).csv, moved: options.transfer?.length ?? 0 })
      return run(task, payload, options)
    }) as typeof app.mill.run)
    // Over 64 KiB: read into 1 MiB blocks, never parsed by body.parse; they move to trading.csv and are gone from here.
    const rows = Array.from({ length: 3_000 }, (_, i) => `${1_700_000_000 + i * 60},10,11,9.5,10.5,1000`)
    const large = `Date,Open,High,Low,Close,Volume\n${rows.join('\n')}\n`
    expect(large.length).toBeGreaterThan(64 * 1024)
    const bytes = await importCsv(app, large, 'symbol=BYTES&timeframe=1m')
    expect(bytes.statusCode, bytes.body).toBe(201)
    expect(tasks).toEqual(['trading.csv'])
    const [blocks] = handed.map((h) => h.csv) as [Uint8Array[]]
    expect(Array.isArray(blocks) && blocks.length > 0 && blocks.every((b) => b instanceof Uint8Array)).toBe(true)
    expect(handed[0]!.moved).toBe(blocks.length)
    expect(blocks.every((b) => b.byteLength === 0)).toBe(true) // detached: moved to the worker, not copied
    // The same file in the JSON form (its `csv` a string member): the same bars, so the same digest, and no new dataset.
    const viaJson = await app.inject({ method: 'POST', url: '/api/v11/datasets', payload: { symbol: 'BYTES', timeframe: '1m', csv: large } })
    expect(viaJson.statusCode, viaJson.body).toBe(200)
    expect(json(viaJson)).toMatchObject({ created: false, id: json(bytes).id, dataset: { sha256: json(bytes).dataset.sha256 } })
    expect(typeof handed[1]!.csv).toBe('string')

    // Small bodies too: a BOM is dropped by the parser, as before; invalid UTF-8 is decoded to U+FFFD and refused by row.
    handed.length = 0
    const bom = await importCsv(app, `\uFEFF${SMALL_CSV}`, 'symbol=BOM&timeframe=1d')
    expect(bom.statusCode, bom.body).toBe(201)
    const plain = await importCsv(app, SMALL_CSV, 'symbol=PLAIN&timeframe=1d')
    expect(json(plain).dataset.sha256).toBe(json(bom).dataset.sha256)
    const invalid = Buffer.concat([Buffer.from('Date,Open,High,Low,Close,Volume\n2024-01-02,1'), Buffer.from([0xff, 0xc3]), Buffer.from('0,11,9.5,10.5,1000\n')])
    const refused = await app.inject({ method: 'POST', url: '/api/v11/datasets?symbol=UTF', payload: invalid, headers: { 'content-type': 'text/csv' } })
    expect(refused.statusCode).toBe(400)
    expect(json(refused).detail).toBe('the CSV was not imported: line 2: open "1\uFFFD\uFFFD0" is not a decimal number')
    expect(handed).toHaveLength(3)
    expect(handed.every((h) => Array.isArray(h.csv) && (h.csv as Uint8Array[]).every((b) => b instanceof Uint8Array && b.byteLength === 0))).toBe(true)
    await app.close()
  })
})
