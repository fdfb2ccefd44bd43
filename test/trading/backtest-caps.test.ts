// Issue #30 item 4: a backtest answer carries at most EQUITY_MAX_POINTS curve points (downsampled) and the first
// INLINE_TRADES_MAX trades, with the paging vocabulary (trades_total, trades_next_cursor) leading to the stored rest.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'
import { storeDataset } from '../hardening/large-dataset.js'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { EQUITY_MAX_POINTS, INLINE_TRADES_MAX } from '../../src/engines/trading/answer-caps.js'

/** More bars than the curve's cap, and (with sma_cross 2/5) more trades than the inline cap. */
const BARS = 25_000
const LONG = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: BARS })
const MANY_TRADES = { dataset: 'CAPS', strategy: 'sma_cross', params: { fast: 2, slow: 5 } }

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTradingApp()
  await storeDataset(app, 'CAPS', '15m', LONG)
}, 60_000)
afterAll(async () => app?.close())

const ok = (res: LightMyRequestResponse) => {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200)
  return json(res)
}
const backtest = (body: object) => app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: body })

describe('a backtest answer\'s caps', () => {
  let answer: any
  beforeAll(async () => {
    answer = ok(await backtest({ ...MANY_TRADES, include: ['trades', 'equity'] }))
  }, 60_000)

  it('downsamples the curve to EQUITY_MAX_POINTS by default, first and last bars kept', () => {
    expect(answer.equity).toMatchObject({ total_points: BARS, downsampled: true })
    expect(answer.equity.points.length).toBeLessThanOrEqual(EQUITY_MAX_POINTS)
    expect(answer.equity.points.length).toBeGreaterThan(EQUITY_MAX_POINTS / 2)
    expect(answer.equity.points[0][0]).toBe(LONG.ts[0])
    expect(answer.equity.points.at(-1)).toEqual([LONG.ts[BARS - 1], answer.stats.equity_final])
  })

  it('refuses equity_points over the cap, naming the field', async () => {
    const res = await backtest({ ...MANY_TRADES, include: ['equity'], equity_points: EQUITY_MAX_POINTS + 1 })
    expect(res.statusCode).toBe(400)
    expect(json(res)).toMatchObject({ code: 'invalid_input' })
    expect(JSON.stringify(json(res).errors)).toContain('equity_points')
  })

  it('inlines the first INLINE_TRADES_MAX trades; the cursor pages the rest from the stored run, in order', async () => {
    expect(answer.trades).toHaveLength(INLINE_TRADES_MAX)
    expect(answer.trades_total).toBeGreaterThan(INLINE_TRADES_MAX)
    expect(answer.trades_next_cursor).toEqual(expect.any(String))
    const page = ok(await app.inject({ method: 'GET', url: `/api/v11/runs/${answer.run.id}/trades?limit=5&cursor=${answer.trades_next_cursor}` }))
    expect(page.total).toBe(answer.trades_total)
    expect(page.trades.map((t: { seq: number }) => t.seq)).toEqual([1001, 1002, 1003, 1004, 1005])
    const first = ok(await app.inject({ method: 'GET', url: `/api/v11/runs/${answer.run.id}/trades?limit=2` }))
    expect(first.trades.map(({ seq: _seq, ...t }: { seq: number }) => t)).toEqual(answer.trades.slice(0, 2))
  })

  it('a run read back with its trades inlines the same first ones and says how many there are', async () => {
    const run = ok(await app.inject({ method: 'GET', url: `/api/v11/runs/${answer.run.id}?include=trades` }))
    expect(run.trades).toEqual(answer.trades)
    expect(run.trades_note).toContain(`the first ${INLINE_TRADES_MAX} of ${answer.trades_total} trades`)
  })

  it('a short run inlines every trade, with no cursor', async () => {
    const short = ok(await backtest({ dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 }, include: ['trades'] }))
    expect(short.trades.length).toBe(short.trades_total)
    expect(short.trades_next_cursor).toBeNull()
    expect(short.equity).toBeUndefined()
  })
})
