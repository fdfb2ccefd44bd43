// Reading back what the platform stored: runs, datasets with their bars, deletion, the paper ledger — every list paged
// the same way (walks without duplicates or gaps while rows are added; bad cursors and over-limit pages refused).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTradingApp()
})
afterAll(async () => {
  await app?.close()
})

const get = (url: string) => app.inject({ method: 'GET', url })
const post = (url: string, payload: object, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload, headers })
const backtest = (body: Record<string, unknown>) => post('/api/v11/trading/backtest', body)

function ok(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(200)
  return json(res)
}

function problem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(json(res).code).toBe(code)
  return json(res)
}

/** Follows next_cursor from the first page to the last; `between` runs after each page (to insert rows mid-walk). */
async function walk(url: string, field: string, limit: number, between?: () => Promise<void>) {
  const rows: any[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 500; pages++) {
    const sep = url.includes('?') ? '&' : '?'
    const body = ok(await get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`))
    expect(body.limit).toBe(limit)
    expect(body[field].length).toBeLessThanOrEqual(limit)
    rows.push(...body[field])
    await between?.()
    if (body.next_cursor === null) return rows
    cursor = body.next_cursor
  }
  throw new Error('no last page')
}

describe('runs', () => {
  const strategies = ['buy_and_hold', 'sma_cross', 'rsi_reversion', 'ema_cross', 'donchian_breakout']
  let first: any

  beforeAll(async () => {
    for (const strategy of strategies) {
      for (const dataset of ['SYN-DAILY', 'SYN-15M']) expect((await backtest({ dataset, strategy })).statusCode).toBe(200)
    }
    first = json(await backtest({ dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 }, commission: 0.001, include: ['equity'] }))
    expect((await post('/api/v11/trading/simulate', { dataset: 'SYN-DAILY', strategy: 'buy_and_hold', paths: 20, horizon: 20, seed: 1 })).statusCode).toBe(200)
  })

  it('walks newest first in pages without duplicates or gaps while runs are added', async () => {
    const before = ok(await get('/api/v11/runs?limit=500')).runs.map((r: { id: number }) => r.id)
    expect(before.length).toBeGreaterThanOrEqual(12)
    let added = 0
    const walked = await walk('/api/v11/runs', 'runs', 3, async () => {
      // Distinct inputs, so each is a new run even where identical runs are stored once.
      if (added++ < 3) expect((await backtest({ dataset: 'SYN-15M', strategy: 'buy_and_hold', commission: added / 10_000 })).statusCode).toBe(200)
    })
    expect(walked.map((r) => r.id)).toEqual(before)
    expect([...before].sort((a, b) => b - a)).toEqual(before)
    expect(ok(await get('/api/v11/runs?limit=500')).runs.length).toBe(before.length + 3)
  })

  it('filters by kind, dataset and strategy, each item linking to the whole run', async () => {
    const sims = ok(await get('/api/v11/runs?kind=simulate')).runs
    expect(sims.length).toBeGreaterThanOrEqual(1)
    for (const r of sims) expect(r.kind).toBe('simulate')
    const daily = await walk('/api/v11/runs?dataset=SYN-DAILY&strategy=sma_cross', 'runs', 1)
    expect(daily.length).toBeGreaterThanOrEqual(2)
    for (const r of daily) expect(r).toMatchObject({ dataset: { symbol: 'SYN-DAILY' }, strategy: 'sma_cross', href: `/api/v11/runs/${r.id}` })
    problem(await get('/api/v11/runs?dataset=NOPE'), 404, 'not_found')
    problem(await get('/api/v11/runs?strategy=nope'), 400, 'invalid_input')
  })

  it('reads one run back with its inputs, stats and stored equity; trades are recomputed on request and checked', async () => {
    const run = ok(await get(`/api/v11/runs/${first.run.id}`))
    expect(run).toMatchObject({ id: first.run.id, kind: 'backtest', strategy: 'sma_cross', inputs_digest: first.run.inputs_digest })
    expect(run.inputs).toMatchObject({ dataset: 'SYN-DAILY', strategy: 'sma_cross', commission: 0.001, params: { fast: 5, slow: 20 } })
    expect(run.stats).toEqual(first.stats)
    expect(run.equity.points.length).toBe(run.equity.stored_points)
    expect(run.equity.points.at(-1)[1]).toBeCloseTo(first.stats.equity_final, 6)
    expect(run.trades).toBeNull()
    expect(run.trades_note).toMatch(/include=trades/)

    const withTrades = ok(await get(`/api/v11/runs/${first.run.id}?include=trades&equity_points=10`))
    expect(withTrades.trades_verified).toBe(true)
    expect(withTrades.trades.length).toBe(first.stats.trades + withTrades.trades.filter((t: { open: boolean }) => t.open).length)
    expect(withTrades.equity.points.length).toBeLessThanOrEqual(10)
    expect(withTrades.equity.downsampled).toBe(true)
    // Reading back stores nothing new.
    expect(ok(await get('/api/v11/runs?limit=1')).runs[0].id).toBeGreaterThanOrEqual(first.run.id)
    const count = ok(await get('/api/v11/runs?limit=500')).runs.length
    await get(`/api/v11/runs/${first.run.id}?include=trades`)
    expect(ok(await get('/api/v11/runs?limit=500')).runs.length).toBe(count)
  })

  it('links every recent run, dataset and ledger list from the command center page, each link answering', async () => {
    const page = await get('/command-center')
    expect(page.statusCode).toBe(200)
    const links = [...page.body.matchAll(/href="(\/api\/v11\/[^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'))
    const recent = ok(await get('/api/v11/runs?limit=10')).runs.map((r: { href: string }) => r.href)
    expect(links).toEqual(expect.arrayContaining([...recent, '/api/v11/runs', '/api/v11/datasets', '/api/v11/ledger/fills']))
    for (const href of new Set(links)) expect((await get(href)).statusCode, href).toBe(200)
  })

  it('answers a run without an equity curve with equity null and the reason', async () => {
    const sim = ok(await get('/api/v11/runs?kind=simulate&limit=1')).runs[0]
    const run = ok(await get(sim.href))
    expect(run).toMatchObject({ equity: null, trades: null })
    expect(run.equity_note).toMatch(/no equity curve/)
    // A backtest keeps its curve whether or not its answer showed it, and says where every bar of it is.
    const bt = json(await backtest({ dataset: 'SYN-15M', strategy: 'ema_cross', commission: 0.0005 }))
    const kept = ok(await get(`/api/v11/runs/${bt.run.id}`))
    expect(kept).toMatchObject({ stats: bt.stats, equity: { downsampled: false } })
    expect(kept.equity_note).toContain(`/api/v11/runs/${bt.run.id}/equity`)
    expect(ok(await get('/api/v11/runs?limit=1')).runs[0]).toMatchObject({ id: bt.run.id, equity_stored: true })
    problem(await get('/api/v11/runs/999999'), 404, 'not_found')
    problem(await get('/api/v11/runs/abc'), 400, 'invalid_input')
  })
})

describe('paging refusals, the same on every list', () => {
  const lists = ['/api/v11/runs', '/api/v11/datasets', '/api/v11/datasets/SYN-DAILY', '/api/v11/ledger/accounts',
    '/api/v11/ledger/positions', '/api/v11/ledger/orders', '/api/v11/ledger/fills', '/api/v11/ledger/cycles']

  it.each(lists)('%s refuses a bad cursor (400), a cursor of another list (400) and a limit over 500 (422)', async (url) => {
    const bad = problem(await get(`${url}?cursor=not*a*cursor`), 400, 'invalid_input')
    expect(bad.errors[0].path).toBe('cursor')
    const foreign = Buffer.from(JSON.stringify([1, 'elsewhere', [1]])).toString('base64url')
    expect(problem(await get(`${url}?cursor=${foreign}`), 400, 'invalid_input').detail).toMatch(/elsewhere/)
    const over = problem(await get(`${url}?limit=501`), 422, 'over_limit')
    expect(over.detail).toMatch(/500/)
    problem(await get(`${url}?limit=0`), 400, 'invalid_input')
    expect(ok(await get(`${url}?limit=500`)).limit).toBe(500)
  })
})

describe('datasets', () => {
  it('lists datasets in pages and reads one with every bar across pages', async () => {
    const all = ok(await get('/api/v11/datasets')).datasets
    expect((await walk('/api/v11/datasets', 'datasets', 1)).map((d) => d.id)).toEqual(all.map((d: { id: number }) => d.id))
    const daily = all.find((d: { symbol: string }) => d.symbol === 'SYN-DAILY')
    const bars = await walk(`/api/v11/datasets/${daily.id}`, 'bars', 300)
    expect(bars.length).toBe(daily.rows)
    expect(bars[0].time).toBe(daily.first_ts)
    expect(bars.at(-1).time).toBe(daily.last_ts)
    for (let i = 1; i < bars.length; i++) expect(bars[i].ts).toBeGreaterThan(bars[i - 1].ts)
    const one = ok(await get('/api/v11/datasets/SYN-DAILY?limit=2'))
    expect(one.dataset).toEqual(daily)
    expect(one.references.runs).toBeGreaterThan(0)
    problem(await get('/api/v11/datasets/NOPE'), 404, 'not_found')
  })

  it('refuses to delete a dataset runs refer to unless cascade, then deletes it with its runs', async () => {
    const day = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
    const csv = 'Date,Open,High,Low,Close,Volume\n' + Array.from({ length: 40 }, (_, i) => `${day(i)},10,11,9,${10 + (i % 5) / 10},100`).join('\n')
    const imported = await app.inject({ method: 'POST', url: '/api/v11/datasets?symbol=DEL', payload: csv, headers: { 'content-type': 'text/csv' } })
    expect(imported.statusCode, imported.body).toBe(201)
    const id = json(imported).id
    expect((await backtest({ dataset: id, strategy: 'buy_and_hold' })).statusCode).toBe(200)
    const refused = problem(await app.inject({ method: 'DELETE', url: `/api/v11/datasets/${id}` }), 409, 'conflict')
    expect(refused.references).toMatchObject({ runs: 1, signals: 0, fills: 0 })
    const deleted = ok(await app.inject({ method: 'DELETE', url: `/api/v11/datasets/DEL?cascade=true` }))
    expect(deleted).toMatchObject({ deleted: { id, symbol: 'DEL' }, removed: { bars: 40, runs: 1, signals: 0 } })
    problem(await get(`/api/v11/datasets/${id}`), 404, 'not_found')
    expect(ok(await get(`/api/v11/runs?limit=500`)).runs.every((r: { dataset: { id: number } }) => r.dataset.id !== id)).toBe(true)
    expect(ok(await get('/api/v11/system/verify')).ok).toBe(true)
  })
})

describe('the paper ledger', () => {
  beforeAll(async () => {
    // Alternate long and flat so every other cycle places an order; two accounts.
    for (let i = 0; i < 12; i++) {
      const body = i % 2 === 0 ? { strategy: 'buy_and_hold' } : { strategy: 'rsi_reversion', params: { period: 14, low: 1, high: 2 } }
      const res = await post('/api/v11/trading/full-cycle', { dataset: 'SYN-DAILY', account: i < 6 ? 'alpha' : 'beta', ...body })
      expect(res.statusCode, res.body).toBeLessThan(300)
    }
  })

  it('lists accounts, positions, orders, fills and cycles in pages, stable while cycles are added', async () => {
    const accounts = await walk('/api/v11/ledger/accounts', 'accounts', 1)
    expect(accounts.map((a) => a.id)).toEqual(expect.arrayContaining(['alpha', 'beta']))
    const positions = await walk('/api/v11/ledger/positions', 'positions', 1)
    expect(positions.map((p) => p.account_id)).toEqual(expect.arrayContaining(['alpha', 'beta']))
    for (const [name, total] of [['orders', 12], ['fills', 12], ['cycles', 12]] as const) {
      const before = ok(await get(`/api/v11/ledger/${name}?limit=500`))[name]
      expect(before.length).toBeGreaterThanOrEqual(name === 'cycles' ? total : total / 2)
      let added = 0
      const walked = await walk(`/api/v11/ledger/${name}`, name, 2, async () => {
        if (added++ < 2) await post('/api/v11/trading/full-cycle', { dataset: 'SYN-DAILY', account: 'gamma', strategy: added % 2 ? 'buy_and_hold' : 'rsi_reversion', params: added % 2 ? {} : { period: 14, low: 1, high: 2 } })
      })
      expect(walked.map((r) => r.id)).toEqual(before.map((r: { id: number }) => r.id))
    }
    const beta = await walk('/api/v11/ledger/fills?account=beta&dataset=SYN-DAILY', 'fills', 1)
    expect(beta.length).toBeGreaterThan(0)
    for (const f of beta) expect(f).toMatchObject({ account_id: 'beta', symbol: 'SYN-DAILY' })
  })

  it('never deletes a dataset the ledger refers to, cascade or not', async () => {
    const refused = problem(await app.inject({ method: 'DELETE', url: '/api/v11/datasets/SYN-DAILY?cascade=true' }), 409, 'conflict')
    expect(refused.detail).toMatch(/paper ledger/)
  })
})

describe('scopes and documentation', () => {
  it('needs trading:write to delete a dataset when ADMIN_TOKEN is set', async () => {
    const guarded = await buildTradingApp({ env: { ADMIN_TOKEN: 'readback-test-admin-token' } })
    try {
      problem(await guarded.inject({ method: 'DELETE', url: '/api/v11/datasets/SYN-15M' }), 401, 'unauthorized')
      const res = await guarded.inject({ method: 'DELETE', url: '/api/v11/datasets/SYN-15M', headers: { authorization: 'Bearer readback-test-admin-token' } })
      expect(res.statusCode, res.body).toBe(200)
    } finally {
      await guarded.close()
    }
  })

  it('documents every read-back route in /docs/json with paging parameters', async () => {
    const doc = ok(await get('/docs/json'))
    for (const path of ['/api/v11/runs', '/api/v11/datasets', '/api/v11/datasets/{ref}', '/api/v11/ledger/accounts', '/api/v11/ledger/positions',
      '/api/v11/ledger/orders', '/api/v11/ledger/fills', '/api/v11/ledger/cycles']) {
      const names = doc.paths[path].get.parameters.map((p: { name: string }) => p.name)
      expect(names, path).toEqual(expect.arrayContaining(['limit', 'cursor']))
      const limit = doc.paths[path].get.parameters.find((p: { name: string }) => p.name === 'limit')
      expect(limit.schema.maximum, path).toBe(500)
    }
    expect(doc.paths['/api/v11/runs/{id}'].get).toBeDefined()
    expect(doc.paths['/api/v11/datasets/{ref}'].delete).toBeDefined()
  })
})
