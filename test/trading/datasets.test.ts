// POST /api/v11/datasets: CSV and JSON imports, all-or-nothing validation, scope trading:write, body limit.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
})
