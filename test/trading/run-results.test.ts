// A run's results taken away: trades and equity paged and as streamed CSV, 406 for another Accept, deletion under its
// scope, runs compared side by side, a replay that says whether every statistic is identical, the equity card.
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

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers })
const post = (url: string, payload: object = {}) => app.inject({ method: 'POST', url, payload })
const ok = (res: LightMyRequestResponse) => {
  expect(res.statusCode, res.body).toBe(200)
  return json(res)
}
function problem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(json(res).code).toBe(code)
  return json(res)
}

/** Every item of a paged list, following next_cursor. */
async function walk(url: string, field: string, limit: number) {
  const items: any[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 1000; pages++) {
    const body = ok(await get(`${url}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`))
    items.push(...body[field])
    if (body.next_cursor === null) return items
    cursor = body.next_cursor
  }
  throw new Error('no last page')
}

describe('a backtest\'s trades and equity', () => {
  let run: any
  let answer: any
  beforeAll(async () => {
    answer = ok(await post('/api/v11/trading/backtest', {
      dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 }, commission: 0.001, include: ['trades', 'equity'],
    }))
    run = answer.run
  })

  it('pages every stored trade, in order, equal to the backtest\'s own trade list', async () => {
    const trades = await walk(`/api/v11/runs/${run.id}/trades`, 'trades', 7)
    expect(trades.length).toBe(answer.trades.length)
    expect(trades.length).toBeGreaterThan(10)
    expect(trades.map((t) => t.seq)).toEqual(trades.map((_t, k) => k + 1))
    expect(trades.map(({ seq: _seq, ...t }) => t)).toEqual(answer.trades)
    const first = ok(await get(`/api/v11/runs/${run.id}/trades?limit=3`))
    expect(first).toMatchObject({ run_id: run.id, total: answer.trades.length, limit: 3, csv: `/api/v11/runs/${run.id}/trades` })
  })

  it('downloads every trade as CSV with Accept: text/csv', async () => {
    const res = await get(`/api/v11/runs/${run.id}/trades`, { accept: 'text/csv' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/csv/)
    expect(res.headers['content-disposition']).toBe(`attachment; filename="run-${run.id}-trades.csv"`)
    const lines = res.body.trim().split('\n')
    expect(lines[0]).toBe('seq,entry_time,exit_time,size,entry_bar,exit_bar,entry_ts,exit_ts,entry_price,exit_price,pnl,return_pct,commissions,open')
    expect(lines.length).toBe(answer.trades.length + 1)
    const cells = lines[1]!.split(',')
    expect(cells[1]).toBe(answer.trades[0].entry_time)
    expect(Number(cells[10])).toBe(answer.trades[0].pnl)
  })

  it('pages the curve a point a bar with its drawdown, and downloads it whole as CSV', async () => {
    const points = await walk(`/api/v11/runs/${run.id}/equity`, 'points', 500)
    expect(points.length).toBe(answer.dataset.bars)
    expect(points.map((p) => p.i)).toEqual(points.map((_p, k) => k))
    expect(points.map((p) => [p.ts, p.equity])).toEqual(answer.equity.points)
    let peak = -Infinity
    for (const p of points) {
      peak = Math.max(peak, p.equity)
      expect(p.drawdown_pct).toBeCloseTo((p.equity / peak - 1) * 100, 10)
    }
    expect(Math.min(...points.map((p) => p.drawdown_pct))).toBeCloseTo(answer.stats.max_drawdown_pct, 8)
    const csv = await get(`/api/v11/runs/${run.id}/equity`, { accept: 'text/csv;q=0.9, application/json;q=0.1' })
    expect(csv.headers['content-type']).toMatch(/^text\/csv/)
    const lines = csv.body.trim().split('\n')
    expect(lines[0]).toBe('i,time,ts,equity,drawdown_pct')
    expect(lines.length).toBe(points.length + 1)
    expect(lines.at(-1)!.split(',').slice(2, 4).map(Number)).toEqual([points.at(-1).ts, points.at(-1).equity])
  })

  it('refuses an Accept it cannot answer with 406, an unknown run and a run without trades with 404', async () => {
    const refused = problem(await get(`/api/v11/runs/${run.id}/trades`, { accept: 'application/xml' }), 406, 'not_acceptable')
    expect(refused.acceptable).toEqual(['application/json', 'text/csv'])
    problem(await get(`/api/v11/runs/${run.id}/equity`, { accept: 'image/png' }), 406, 'not_acceptable')
    problem(await get('/api/v11/runs/999999/trades'), 404, 'not_found')
    problem(await get('/api/v11/runs/999999/equity', { accept: 'text/csv' }), 404, 'not_found')
    problem(await get('/api/v11/runs/abc/trades'), 400, 'invalid_input')
    const sim = ok(await post('/api/v11/trading/simulate', { dataset: 'SYN-DAILY', strategy: 'buy_and_hold', paths: 10, horizon: 10, seed: 3 }))
    expect(problem(await get(`/api/v11/runs/${sim.run.id}/trades`), 404, 'not_found').detail).toMatch(/simulate run/)
    problem(await get(`/api/v11/runs/${run.id}/trades?cursor=bad!`), 400, 'invalid_input')
    problem(await get(`/api/v11/runs/${run.id}/trades?limit=501`), 422, 'over_limit')
  })

  it('gives Monte Carlo equity bands of the run\'s trades, reproducible by seed, and refuses what it cannot do', async () => {
    const mc = ok(await get(`/api/v11/runs/${run.id}/monte-carlo?paths=300&seed=5`))
    const closed = answer.trades.filter((t: any) => !t.open).length
    expect(mc).toMatchObject({ run_id: run.id, paths: 300, trades: closed, seed: 5, start_equity: 10_000, complete: true })
    expect(mc.bands[0]).toMatchObject({ step: 0, p5: 10_000, p95: 10_000 })
    expect(mc.bands.at(-1).step).toBe(closed)
    for (const b of mc.bands) expect(b.p5 <= b.p50 && b.p50 <= b.p95).toBe(true)
    expect(ok(await get(`/api/v11/runs/${run.id}/monte-carlo?paths=300&seed=5`))).toEqual(mc)
    problem(await get('/api/v11/runs/999999/monte-carlo'), 404, 'not_found')
    problem(await get(`/api/v11/runs/${run.id}/monte-carlo?paths=5`), 400, 'invalid_input')
    problem(await get(`/api/v11/runs/${run.id}/monte-carlo?paths=30000`), 400, 'invalid_input')
  })

  it('shows the latest backtest\'s curve on the command center without include', async () => {
    const plain = ok(await post('/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'ema_cross' }))
    const panels = ok(await get('/api/v6/command-center/panels'))
    expect(panels.panels.equity.run_id).toBe(plain.run.id)
    expect(panels.panels.equity.points.length).toBeGreaterThan(100)
  })
})

describe('annualisation stated beside the figures', () => {
  it('states how a backtest, a walk-forward search and a simulation annualised, and takes the request\'s periods_per_year', async () => {
    const daily = ok(await post('/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'buy_and_hold' }))
    expect(daily.stats.annualization.periods_per_year).toBeOneOf([252, 365])
    const intraday = ok(await post('/api/v11/trading/backtest', { dataset: 'SYN-15M', strategy: 'buy_and_hold' }))
    expect(intraday.stats.annualization.basis).toMatch(/15m bars resampled to days/)
    const stated = ok(await post('/api/v11/trading/backtest', { dataset: 'SYN-15M', strategy: 'buy_and_hold', periods_per_year: 35_040 }))
    expect(stated.stats.annualization).toEqual({ periods_per_year: 35_040, basis: 'stated in the request; per-bar returns of 15m bars' })
    expect(stated.settings.periods_per_year).toBe(35_040)
    expect(stated.stats.sharpe_ratio).not.toBe(intraday.stats.sharpe_ratio)
    expect(stated.run.fingerprint).not.toBe(intraday.run.fingerprint)
    const search = ok(await post('/api/v11/trading/max-edge-signal', { dataset: 'SYN-DAILY', strategies: ['sma_cross'], grid: { sma_cross: { fast: [5], slow: [20] } } }))
    expect(search.annualization.periods_per_year).toBe(search.bars_per_year)
    expect(search.oos_stats.annualization.periods_per_year).toBeOneOf([252, 365])
    const sim = ok(await post('/api/v11/trading/simulate', { dataset: 'SYN-15M', strategy: 'buy_and_hold', paths: 5, horizon: 10, periods_per_year: 1000 }))
    expect(sim.annualization).toEqual({ periods_per_year: 1000, basis: 'stated in the request; per-bar returns of 15m bars' })
    problem(await post('/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'buy_and_hold', periods_per_year: 0 }), 400, 'invalid_input')
  })
})

describe('verdicts on overfitting', () => {
  it('answers trials run, deflated Sharpe and PBO for a walk-forward search, and stores its trials', async () => {
    const body = ok(await post('/api/v11/trading/max-edge-signal', {
      dataset: 'SYN-DAILY', strategies: ['sma_cross', 'ema_cross'], grid: { sma_cross: { fast: [5, 10, 15], slow: [20, 40] }, ema_cross: { fast: [5, 10], slow: [30, 50] } },
    }))
    expect(body.overfitting.trials).toBe(body.configs_tried)
    expect(body.configs_tried).toBe(10)
    expect(body.overfitting.deflated_sharpe).toBe(body.deflated_sharpe.dsr)
    expect(body.overfitting.pbo).toBeGreaterThanOrEqual(0)
    expect(body.overfitting.pbo).toBeLessThanOrEqual(1)
    expect(body.overfitting.pbo_detail).toMatchObject({ blocks: 16, combinations: 12_870, trials: 10 })
    const stored = await app.store.sql.all<{ strategy: string; params: string }>('SELECT strategy, params FROM run_trials WHERE run_id = ? ORDER BY seq', [body.run.id])
    expect(stored.length).toBe(10)
    expect(stored[0]).toEqual({ strategy: 'sma_cross', params: JSON.stringify({ fast: 5, slow: 20 }) })
    const run = ok(await get(`/api/v11/runs/${body.run.id}`))
    expect(run.stats.overfitting).toEqual(body.overfitting)
  })

  it('answers the same verdict for v10\'s in-sample grid search, with every pair counted', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v10/trading/max-edge-signal', payload: { dataset: 'SYN-DAILY', fast: [5, 10, 15, 20], slow: [30, 40, 50] } })
    const body = ok(res)
    expect(body.overfitting).toMatchObject({ trials: 12, pbo_detail: { trials: 12, blocks: 16 } })
    expect(body.overfitting.pbo).toBeGreaterThanOrEqual(0)
    expect(body.overfitting.pbo).toBeLessThanOrEqual(1)
    expect(body.overfitting.deflated_sharpe).toBeGreaterThanOrEqual(0)
    expect(body.overfitting.deflated_sharpe).toBeLessThanOrEqual(1)
  })
})

describe('runs compared, replayed and deleted', () => {
  let a: any
  let b: any
  beforeAll(async () => {
    a = ok(await post('/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'rsi_reversion', commission: 0.001 })).run
    b = ok(await post('/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'rsi_reversion', commission: 0.004 })).run
  })

  it('compares runs side by side with only the paths where they differ', async () => {
    const body = ok(await get(`/api/v11/runs/compare?ids=${a.id},${b.id}`))
    expect(body.ids).toEqual([a.id, b.id])
    expect(body.runs.map((r: any) => r.id)).toEqual([a.id, b.id])
    expect(body.differences.inputs).toEqual([{ path: 'commission', values: [0.001, 0.004] }])
    expect(body.differences.dataset).toEqual([])
    const commissions = body.differences.stats.find((d: any) => d.path === 'commissions')
    expect(commissions.values[0]).toBeLessThan(commissions.values[1])
    expect(body.same_fingerprint).toBe(false)
    expect(body.runs[0].fingerprint).toBe(a.fingerprint)
  })

  it('refuses bad, too few, too many and unknown ids', async () => {
    problem(await get(`/api/v11/runs/compare?ids=${a.id}`), 400, 'invalid_input')
    problem(await get(`/api/v11/runs/compare?ids=${a.id},${a.id}`), 400, 'invalid_input')
    problem(await get(`/api/v11/runs/compare?ids=${a.id},x`), 400, 'invalid_input')
    problem(await get('/api/v11/runs/compare?ids=1,2,3,4,5,6,7,8,9,10,11'), 422, 'over_limit')
    problem(await get(`/api/v11/runs/compare?ids=${a.id},999999`), 404, 'not_found')
    problem(await get('/api/v11/runs/compare'), 400, 'invalid_input')
  })

  it('replays a run: identical statistics, the same engine and fingerprint', async () => {
    const body = ok(await post(`/api/v11/runs/${a.id}/replay`))
    expect(body).toMatchObject({ run_id: a.id, kind: 'backtest', identical: true, differences: [] })
    expect(body.compared).toBeGreaterThan(30)
    expect(body.engine_version.same).toBe(true)
    expect(body.fingerprint).toEqual({ stored: a.fingerprint, now: a.fingerprint, same: true })
    const walkForward = ok(await post('/api/v11/trading/max-edge-signal', { dataset: 'SYN-DAILY', strategies: ['sma_cross'], grid: { sma_cross: { fast: [5, 10], slow: [20, 30] } } }))
    expect(ok(await post(`/api/v11/runs/${walkForward.run.id}/replay`))).toMatchObject({ kind: 'max_edge', identical: true })
  })

  it('names the statistics that differ and an engine version that is not this one', async () => {
    const row = (await app.store.sql.get<{ stats: string }>('SELECT stats FROM runs WHERE id = ?', [b.id]))!
    const stats = JSON.parse(row.stats)
    await app.store.sql.run('UPDATE runs SET stats = ?, engine_version = ? WHERE id = ?', [JSON.stringify({ ...stats, sharpe_ratio: 99 }), '0.9.0', b.id])
    const body = ok(await post(`/api/v11/runs/${b.id}/replay`))
    expect(body.identical).toBe(false)
    expect(body.differences).toEqual([{ path: 'sharpe_ratio', stored: 99, now: stats.sharpe_ratio }])
    expect(body.engine_version).toMatchObject({ stored: '0.9.0', same: false })
    expect(body.engine_version.note).toMatch(/stored by engine 0\.9\.0/)
    problem(await post('/api/v11/runs/999999/replay'), 404, 'not_found')
  })

  it('deletes a run with its trades and curve; a second delete is 404', async () => {
    const res = await app.inject({ method: 'DELETE', url: `/api/v11/runs/${a.id}` })
    expect(ok(res).deleted).toMatchObject({ id: a.id, kind: 'backtest' })
    problem(await get(`/api/v11/runs/${a.id}`), 404, 'not_found')
    problem(await get(`/api/v11/runs/${a.id}/trades`), 404, 'not_found')
    const left = await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM run_trades WHERE run_id = ?', [a.id])
    expect(Number(left!.n)).toBe(0)
    problem(await app.inject({ method: 'DELETE', url: `/api/v11/runs/${a.id}` }), 404, 'not_found')
  })
})

describe('deleting a run needs trading:write', () => {
  let secured: FastifyInstance
  beforeAll(async () => {
    secured = await buildTradingApp({ env: { ADMIN_TOKEN: 'a-test-admin-token-123456' } })
  })
  afterAll(async () => {
    await secured?.close()
  })
  it('refuses an anonymous delete with 401 naming the scope, and deletes with the admin token', async () => {
    // The backtest is heavy work: run:heavy on this host (the admin token carries it).
    const run = json(await secured.inject({
      method: 'POST', url: '/api/v11/trading/backtest', payload: { dataset: 'SYN-DAILY', strategy: 'buy_and_hold' }, headers: { authorization: 'Bearer a-test-admin-token-123456' },
    })).run
    const refused = await secured.inject({ method: 'DELETE', url: `/api/v11/runs/${run.id}` })
    expect(refused.statusCode).toBe(401)
    expect(json(refused).detail).toMatch(/trading:write/)
    const done = await secured.inject({ method: 'DELETE', url: `/api/v11/runs/${run.id}`, headers: { authorization: 'Bearer a-test-admin-token-123456' } })
    expect(done.statusCode, done.body).toBe(200)
  })
})
