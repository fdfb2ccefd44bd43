// GET /api/v11/runs/:id writes a run's stored curve and trades through the route's own schema (in the mill past a few
// KiB): byte for byte what the route's serializer wrote from the value the loop used to build, and with the loop
// tripwire armed (the tests' hosts run with LOOP_TRIPWIRE=throw) for an answer of 1,000 trades.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { downsample } from '../../src/engines/trading/downsample.js'
import { INLINE_TRADES_MAX } from '../../src/engines/trading/answer-caps.js'
import { serializerOf } from '../../src/json/serializer.js'
import { LOOP_VALUE_MAX_BYTES } from '../../src/json/loop-rule.js'
import { runDetail } from '../../src/trading/readback-schemas.js'
import { TRADE_JSON_MAX_BYTES } from '../../src/trading/readback.js'
import { createTradingRepository, type TradingRepository } from '../../src/trading/repository.js'
import { pageTrade } from '../../src/trading/run-results.js'
import { storeDataset } from '../hardening/large-dataset.js'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'

let app: FastifyInstance
let repo: TradingRepository
const runs = { many: 0, few: 0, simulate: 0 }

beforeAll(async () => {
  app = await buildTradingApp()
  repo = createTradingRepository(app.store.sql)
  await storeDataset(app, 'RUNS-WIDE', '15m', generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: 12_000 }))
  const backtest = async (body: object) => {
    const res = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: body })
    expect(res.statusCode, res.body).toBe(200)
    return json(res).run.id as number
  }
  runs.many = await backtest({ dataset: 'RUNS-WIDE', strategy: 'sma_cross', params: { fast: 2, slow: 5 }, commission: 0 })
  runs.few = await backtest({ dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 20, slow: 60 } })
  const sim = await app.inject({ method: 'POST', url: '/api/v11/trading/simulate', payload: { dataset: 'SYN-DAILY', strategy: 'buy_and_hold', paths: 20, horizon: 20, seed: 1 } })
  expect(sim.statusCode, sim.body).toBe(200)
  runs.simulate = json(sim).run.id
})
afterAll(async () => {
  await app?.close()
})

/**
 * What the route sent before its curve and trades were written in the mill: the value the loop built (the stored
 * curve parsed and downsampled, the first trades as rows), written by the route's serializer. The other members are
 * the answer's own; the serializer writes every member in the schema's order whatever the value's.
 */
async function formerText(id: number, answer: Record<string, unknown>, query: { trades: boolean; points?: number }): Promise<string> {
  const row = (await repo.runById(id))!
  let equity = null
  if (row.equity !== null) {
    const stored = JSON.parse(row.equity) as Array<[number, number]>
    const points = query.points !== undefined && query.points < stored.length
      ? downsample(Float64Array.from(stored, (p) => p[0]), Float64Array.from(stored, (p) => p[1]), query.points)
      : stored
    equity = { points, stored_points: stored.length, downsampled: points.length < stored.length }
  }
  let trades = null
  if (query.trades && row.kind === 'backtest') {
    const rows = await repo.runTradesPage(id, 0, Math.min(await repo.runTradeCount(id), INLINE_TRADES_MAX))
    trades = rows.map((t) => {
      const { seq: _seq, ...view } = pageTrade(t)
      return view
    })
  }
  return serializerOf(runDetail)({ ...answer, equity, trades })
}

describe('a run read back', () => {
  const cases: Array<[string, keyof typeof runs, string, { trades: boolean; points?: number }, 'mill' | 'loop']> = [
    ['1,000 of its trades and its curve (over the loop\'s limit)', 'many', '?include=trades', { trades: true }, 'mill'],
    ['1,000 trades and a curve downsampled further', 'many', '?include=trades&equity_points=10', { trades: true, points: 10 }, 'mill'],
    ['its curve without trades', 'many', '', { trades: false }, 'loop'],
    ['a few trades', 'few', '?include=trades', { trades: true }, 'loop'],
    ['a few trades and 2 points', 'few', '?include=trades&equity_points=2', { trades: true, points: 2 }, 'loop'],
    ['a run without curve or trades', 'simulate', '?include=trades', { trades: true }, 'loop'],
  ]
  it.each(cases)('answers %s byte for byte as the value the loop built', async (_label, which, query, shown, where) => {
    const id = runs[which]
    const before = app.mill.stats().completed
    const res = await app.inject({ method: 'GET', url: `/api/v11/runs/${id}${query}` })
    expect(res.statusCode, res.body).toBe(200)
    expect(app.mill.stats().completed - before).toBe(where === 'mill' ? 1 : 0)
    const answer = json(res)
    expect(res.rawPayload.equals(Buffer.from(await formerText(id, answer, shown)))).toBe(true)
    if (which === 'many' && shown.trades) {
      expect(await repo.runTradeCount(id)).toBeGreaterThan(INLINE_TRADES_MAX)
      expect(answer.trades).toHaveLength(INLINE_TRADES_MAX)
      expect(res.rawPayload.byteLength).toBeGreaterThan(LOOP_VALUE_MAX_BYTES)
    }
    if (which === 'few' && shown.trades) expect(answer.trades.length).toBeGreaterThan(0)
  })

  it('bounds a trade\'s JSON by TRADE_JSON_MAX_BYTES, every figure at its longest', () => {
    const long = -1.2345678901234567e-300
    const time = new Date(8.64e15).toISOString()
    const trade = { size: long, entry_bar: Number.MIN_SAFE_INTEGER, exit_bar: Number.MIN_SAFE_INTEGER, entry_time: time, exit_time: time,
      entry_price: long, exit_price: long, pnl: long, return_pct: long, commissions: long, open: false }
    // Each trade after the first adds a comma.
    expect(serializerOf(runDetail.shape.trades.unwrap())([trade]).length).toBeLessThanOrEqual(TRADE_JSON_MAX_BYTES)
  })
})
