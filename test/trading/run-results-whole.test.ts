// A run's results appear whole or not at all: while a writer holds a run's results (or after it died mid-way) every
// reader answers them as not stored, never a part; a sweep takes a lapsed claim over and writes them again from the
// run's stored request; a writer that lost its claim writes nothing more and never marks them whole. The crash itself
// (a real process killed mid-write) is test/run-results-crash.test.ts.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../helper.js'
import { buildTradingApp } from './helper.js'
import { createTradingService, type TradingService } from '../../src/trading/service.js'
import { sweepInterruptedResults } from '../../src/trading/run-results-sweep.js'
import { writeRunResults } from '../../src/trading/run-results-writer.js'
import { runAgain } from '../../src/trading/run-replay.js'
import { DEFAULT_RESULTS_LEASE_MS } from '../../src/trading/runs.js'

const clock = manualClock()
let app: FastifyInstance
/** The research service over the app's store, as the host's sweep uses it. */
let service: TradingService

beforeAll(async () => {
  app = await buildTradingApp({ clock })
  service = createTradingService({ store: app.store, mill: app.mill, admission: app.admission, clock })
})
afterAll(async () => {
  await app?.close()
})

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers })
function ok(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** A writer that holds the run's results at `at` with only some of its rows written, as a crash mid-way leaves them. */
async function interrupt(id: number, at: number): Promise<void> {
  await app.store.sql.run('UPDATE runs SET results_writer = ?, results_claimed_at = ? WHERE id = ?', ['a-writer-that-died', at, id])
  await app.store.sql.run('DELETE FROM run_trades WHERE run_id = ? AND seq > 10', [id])
  await app.store.sql.run('DELETE FROM run_equity WHERE run_id = ? AND chunk > 0', [id])
}

/** What every reader of a run's results answers. */
async function readers(id: number) {
  const trades = await get(`/api/v11/runs/${id}/trades`)
  const equity = await get(`/api/v11/runs/${id}/equity`)
  return {
    trades: trades.statusCode === 200 ? trades.json().total : trades.json(),
    tradesCsv: (await get(`/api/v11/runs/${id}/trades`, { accept: 'text/csv' })).statusCode,
    equity: equity.statusCode === 200 ? equity.json().total : equity.json(),
    equityCsv: (await get(`/api/v11/runs/${id}/equity`, { accept: 'text/csv' })).statusCode,
    monteCarlo: (await get(`/api/v11/runs/${id}/monte-carlo?paths=20`)).statusCode,
    report: (await get(`/api/v11/runs/${id}/report`)).body,
    run: ok(await get(`/api/v11/runs/${id}`)),
  }
}

describe('a backtest whose results are not whole', () => {
  let id: number
  let whole: { trades: string; equity: string; count: number }
  beforeAll(async () => {
    const answer = ok(await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 3, slow: 12 } } }))
    id = answer.run.id
    whole = {
      trades: (await get(`/api/v11/runs/${id}/trades`, { accept: 'text/csv' })).body,
      equity: (await get(`/api/v11/runs/${id}/equity`, { accept: 'text/csv' })).body,
      count: answer.stats.trades,
    }
    expect(whole.count).toBeGreaterThan(10)
  })

  it('has no results on any reader while a writer holds them, and says why', async () => {
    await interrupt(id, clock.now())
    const seen = await readers(id)
    expect(seen.trades).toMatchObject({ code: 'not_found', results: 'not_stored', state: 'pending' })
    expect(seen.equity).toMatchObject({ code: 'not_found', results: 'not_stored', state: 'pending' })
    expect([seen.tradesCsv, seen.equityCsv, seen.monteCarlo]).toEqual([404, 404, 404])
    expect(seen.report).toContain('id="results-not-stored"')
    expect(seen.report).not.toMatch(/<td[^>]*>1<\/td>/) // no trade rows
    expect(seen.run.trades_note).toMatch(/not stored yet/)
    // ?include=trades recomputes them from the inputs rather than serving the part written.
    const recomputed = ok(await get(`/api/v11/runs/${id}?include=trades`))
    expect(recomputed.trades).toHaveLength(whole.count)
    expect(recomputed.trades_note).toMatch(/^recomputed now/)
  })

  it('is written again whole by the sweep once the writer\'s lease lapsed', async () => {
    expect((await sweepInterruptedResults(service, clock)).rewritten).toEqual([]) // the claim is fresh: its writer may be alive
    clock.advance(DEFAULT_RESULTS_LEASE_MS + 1)
    const swept = await sweepInterruptedResults(service, clock)
    expect(swept).toEqual({ rewritten: [id], givenUp: [], retry: [] })
    expect((await get(`/api/v11/runs/${id}/trades`, { accept: 'text/csv' })).body).toBe(whole.trades)
    expect((await get(`/api/v11/runs/${id}/equity`, { accept: 'text/csv' })).body).toBe(whole.equity)
    expect((await readers(id)).report).not.toContain('results-not-stored')
    expect((await sweepInterruptedResults(service, clock)).rewritten).toEqual([])
  })

  it('is given up when computed again it differs, and a repeat of the run by a request writes it', async () => {
    const stats = (await app.store.sql.get<{ stats: string }>('SELECT stats FROM runs WHERE id = ?', [id]))!.stats
    await interrupt(id, clock.now() - DEFAULT_RESULTS_LEASE_MS - 1)
    await app.store.sql.run('UPDATE runs SET stats = ? WHERE id = ?', [JSON.stringify({ ...JSON.parse(stats), return_pct: -1 }), id])
    expect((await sweepInterruptedResults(service, clock)).givenUp).toEqual([id])
    expect((await get(`/api/v11/runs/${id}/trades`)).json()).toMatchObject({ results: 'not_stored', state: 'given_up' })
    expect((await sweepInterruptedResults(service, clock)).givenUp).toEqual([]) // not tried again
    await app.store.sql.run('UPDATE runs SET stats = ? WHERE id = ?', [stats, id])
    // Another client's identical backtest is not answered from an earlier job: it reaches the run and writes its results.
    const repeat = ok(await app.inject({
      method: 'POST', url: '/api/v11/trading/backtest', remoteAddress: '10.3.0.7', payload: { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 3, slow: 12 } },
    }))
    expect(repeat.run).toMatchObject({ id, stored: false })
    expect((await get(`/api/v11/runs/${id}/trades`, { accept: 'text/csv' })).body).toBe(whole.trades)
  })

  it('is never marked whole by a writer that lost its claim, and a failing writer hands its claim over at once', async () => {
    const row = (await service.repo.runById(id))!
    const again = await runAgain(service, row)
    const what = { results: again.results ?? null, trials: null }
    await interrupt(id, clock.now())
    await writeRunResults(service.repo, clock, id, 'not-the-holder', what, DEFAULT_RESULTS_LEASE_MS)
    expect(await app.store.sql.get('SELECT results_writer FROM runs WHERE id = ?', [id])).toEqual({ results_writer: 'a-writer-that-died' })
    expect(Number((await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM run_trades WHERE run_id = ?', [id]))!.n)).toBe(10)
    // The holder fails on its curve: it throws, and its claim is lapsed for the sweep to take at once.
    const failing = { ...service.repo, insertEquityBatch: async () => { throw new Error('the disk said no') } }
    await expect(writeRunResults(failing, clock, id, 'a-writer-that-died', what, DEFAULT_RESULTS_LEASE_MS)).rejects.toThrow('the disk said no')
    expect((await get(`/api/v11/runs/${id}/trades`)).statusCode).toBe(404)
    expect((await sweepInterruptedResults(service, clock)).rewritten).toEqual([id])
    expect((await get(`/api/v11/runs/${id}/trades`, { accept: 'text/csv' })).body).toBe(whole.trades)
  })
})

describe('a search whose trials are not whole', () => {
  it('shows no heat map until the sweep wrote its trials again', async () => {
    const answer = ok(await app.inject({
      method: 'POST', url: '/api/v11/trading/max-edge-signal',
      payload: { dataset: 'SYN-DAILY', strategies: ['sma_cross'], grid: { sma_cross: { fast: [5, 10, 15], slow: [30, 60] } }, in_sample: 200, out_of_sample: 50 },
    }))
    const id = answer.run.id as number
    const trials = async () => Number((await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM run_trials WHERE run_id = ?', [id]))!.n)
    const stored = await trials()
    expect(stored).toBe(6)
    await app.store.sql.run('UPDATE runs SET results_writer = ?, results_claimed_at = ? WHERE id = ?', ['died', clock.now() - DEFAULT_RESULTS_LEASE_MS - 1, id])
    await app.store.sql.run('DELETE FROM run_trials WHERE run_id = ? AND seq > 2', [id])
    const report = (await get(`/api/v11/runs/${id}/report`)).body
    expect(report).toContain('id="results-not-stored"')
    expect(report).toContain('No trials are stored with this run.')
    expect((await sweepInterruptedResults(service, clock)).rewritten).toEqual([id])
    expect(await trials()).toBe(stored)
    expect((await get(`/api/v11/runs/${id}/report`)).body).not.toContain('No trials are stored')
  })
})
