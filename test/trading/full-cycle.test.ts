// The paper full cycle through the host: sizing, fills, ledger, idempotency (repeats, conflicts, concurrency), verify.
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

const URL = '/api/v11/trading/full-cycle'
const LONG = { strategy: 'buy_and_hold' }
// RSI never falls below 1, so this strategy is flat on any of the synthetic series: a reliable "exit" signal.
const FLAT = { strategy: 'rsi_reversion', params: { period: 14, low: 1, high: 2 } }

const cycle = (body: Record<string, unknown>, key?: string) =>
  app.inject({ method: 'POST', url: URL, payload: body, headers: key ? { 'idempotency-key': key } : {} })

const counts = async () => json(await app.inject('/api/v11/system/inventory')).counts as { orders: number; fills: number; cycles: number }

function problem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(json(res).code).toBe(code)
  return json(res)
}

describe('full cycle', () => {
  it('goes long with a risk-sized order filled at the latest close plus slippage, and records the ledger', async () => {
    const res = await cycle({ dataset: 'SYN-DAILY', ...LONG, commission: 0.001, slippage_bps: 10, account: 'alpha' })
    expect(res.statusCode, res.body).toBe(201)
    const body = json(res)
    expect(body).toMatchObject({ mode: 'paper', outcome: 'ordered', replayed: false, signal: { value: 'long', source: 'given' } })
    const { sizing, order, fill, account, position, bar } = body
    expect(sizing.target_quantity).toBe(Math.min(sizing.units_by_risk, sizing.units_cap_by_position, sizing.units_cap_by_cash))
    expect(sizing.stop_distance).toBeCloseTo(2 * sizing.atr, 10)
    expect(order).toMatchObject({ side: 'buy', quantity: sizing.target_quantity, type: 'market', status: 'filled', reference_price: bar.close })
    expect(fill.price).toBeCloseTo(bar.close * 1.001, 10)
    expect(fill.commission).toBeCloseTo(fill.quantity * fill.price * 0.001, 10)
    expect(account.cash_before).toBe(100_000)
    expect(account.cash_after).toBeCloseTo(100_000 - fill.notional - fill.commission, 8)
    expect(position).toMatchObject({ quantity: fill.quantity, avg_price: fill.price })
    // The position is worth at most its cap of 25 % of equity.
    expect(position.market_value).toBeLessThanOrEqual(0.25 * account.equity_before)
  })

  it('holds when already on the signal side, and closes on a flat signal realising P&L', async () => {
    const hold = json(await cycle({ dataset: 'SYN-DAILY', ...LONG, account: 'alpha' }))
    expect(hold).toMatchObject({ outcome: 'no_change', order: null, fill: null })
    const exit = json(await cycle({ dataset: 'SYN-DAILY', ...FLAT, account: 'alpha' }))
    expect(exit).toMatchObject({ outcome: 'ordered', signal: { value: 'flat' }, order: { side: 'sell' }, position: { quantity: 0 } })
    expect(exit.position.realized_pnl).toBeLessThan(0) // bought above and sold below the same close: slippage costs
  })

  it('replays the first cycle for a repeated Idempotency-Key and never places a second order', async () => {
    const before = await counts()
    const first = await cycle({ dataset: 'SYN-DAILY', ...LONG, account: 'beta' }, 'key-repeat-1')
    expect(first.statusCode).toBe(201)
    const second = await cycle({ ...LONG, dataset: 'SYN-DAILY', account: 'beta' }, 'key-repeat-1') // same body, other key order
    expect(second.statusCode).toBe(201)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(json(second)).toEqual({ ...json(first), replayed: true })
    const after = await counts()
    expect(after.orders - before.orders).toBe(1)
    expect(after.cycles - before.cycles).toBe(1)
  })

  it('refuses the same key with another body with 409', async () => {
    await cycle({ dataset: 'SYN-DAILY', ...LONG, account: 'gamma' }, 'key-conflict-1')
    const res = await cycle({ dataset: 'SYN-DAILY', ...FLAT, account: 'gamma' }, 'key-conflict-1')
    expect(problem(res, 409, 'conflict').detail).toMatch(/key-conflict-1/)
  })

  it('creates exactly one order for concurrent requests with the same key (search path, in the mill)', async () => {
    const before = await counts()
    const body = { dataset: 'SYN-DAILY', account: 'delta', search: { strategies: ['sma_cross'], in_sample: 200, out_of_sample: 50 } }
    const answers = await Promise.all(Array.from({ length: 6 }, () => cycle(body, 'key-concurrent-1')))
    for (const res of answers) expect(res.statusCode, res.body).toBe(201)
    const ids = new Set(answers.map((res) => json(res).cycle_id))
    expect(ids.size).toBe(1)
    expect(answers.filter((res) => json(res).replayed === false)).toHaveLength(1)
    expect(json(answers[0]!).signal).toMatchObject({ source: 'search', strategy: 'sma_cross', run_id: expect.any(Number) })
    const after = await counts()
    expect(after.cycles - before.cycles).toBe(1)
    expect(after.orders - before.orders).toBeLessThanOrEqual(1)
  })

  it('answers concurrent same-key requests with different bodies with one cycle and one 409', async () => {
    const search = { search: { strategies: ['sma_cross'], in_sample: 200, out_of_sample: 50 } }
    const [a, b] = await Promise.all([
      cycle({ dataset: 'SYN-DAILY', account: 'epsilon', ...search }, 'key-concurrent-2'),
      cycle({ dataset: 'SYN-15M', account: 'epsilon', ...search }, 'key-concurrent-2'),
    ])
    expect([a!.statusCode, b!.statusCode].sort()).toEqual([201, 409])
  })

  it('refuses live trading, bad keys, unknown datasets and bad risk settings with problems', async () => {
    const live = problem(await cycle({ dataset: 'SYN-DAILY', ...LONG, mode: 'live' }), 403, 'forbidden')
    expect(live.detail).toMatch(/paper/)
    problem(await cycle({ dataset: 'SYN-DAILY', ...LONG }, 'bad key with spaces'), 400, 'invalid_input')
    problem(await cycle({ dataset: 'NOPE', ...LONG }), 404, 'not_found')
    problem(await cycle({ dataset: 'SYN-DAILY', ...LONG, risk: { fraction: 0.5 } }), 400, 'invalid_input')
    problem(await cycle({ dataset: 'SYN-DAILY', params: { fast: 5 } }), 400, 'invalid_input')
  })

  it('keeps the ledger reconcilable after a burst of cycles across datasets and accounts', async () => {
    const plan = ['SYN-DAILY', 'SYN-15M'].flatMap((dataset) => [LONG, FLAT, LONG, FLAT, LONG].map((s) => ({ dataset, ...s, account: 'burst' })))
    const answers = await Promise.all(plan.map((body, i) => cycle(body, i % 3 === 0 ? `burst-${i}` : undefined)))
    for (const res of answers) expect(res.statusCode, res.body).toBe(201)
    const verify = json(await app.inject('/api/v11/system/verify'))
    expect(verify.ok, JSON.stringify(verify.checks.filter((c: { ok: boolean }) => !c.ok))).toBe(true)
    const ledger = verify.checks.filter((c: { name: string }) => c.name === 'ledger_reconciliation')
    expect(ledger.map((c: { subject: string }) => c.subject)).toContain('account burst')
    const panels = json(await app.inject('/api/v6/command-center/panels')).panels
    expect(panels.positions.account).not.toBeNull()
    expect(panels.signals.length).toBeGreaterThan(0)
  })
})
