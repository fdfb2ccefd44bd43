// Issue #13: a small anonymous backtest request whose answer is large — the whole equity curve and every trade of a
// 250k-bar dataset, or 100k equity points — over a real socket, with a health monitor and the loop's CPU beside it.
// The loop built the curve as tuples and the trades as views with ISO times, took back the result as thousands of
// objects and cloned 12 MB of bars to the mill, each in one stretch that grew with the bars; now the mill writes the
// curve and the trades as JSON text in bytes that move to the loop, taken a part per turn, and reads shared bars.
import { beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { listeningTestApp } from '../helper.js'
import { pastStartReport, storeDataset } from './large-dataset.js'
import { besideHealth as besideHealthOf } from './monitor.js'

const host = listeningTestApp()

/** CPU of the loop's thread between two turns that no step may reach (see the README's "What is bounded"). */
const STRETCH_BOUND_MS = 40

const BARS = 250_000
const LONG = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: BARS })
/** sma_cross(2, 5) on a random walk: a trade every ~9 bars, ~27k of them. */
const MANY_TRADES = { dataset: 'LONG', strategy: 'sma_cross', params: { fast: 2, slow: 5 } }

/** POSTs and keeps the answer's bytes unread until the loop watch is stopped: the test's own parse is not the host's. */
async function postKeepingBytes(path: string, body: unknown) {
  const res = await request(`${host.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const chunks: Buffer[] = []
  for await (const chunk of res.body) chunks.push(chunk as Buffer)
  return { status: res.statusCode, json: () => JSON.parse(Buffer.concat(chunks).toString('utf8')) }
}

const besideHealth = async (label: string, body: unknown) => {
  const { value: res, ...watched } = await besideHealthOf(host.base, label, () => postKeepingBytes('/api/v11/trading/backtest', body))
  return { res, ...watched }
}

describe('a backtest with a large answer keeps the loop turning', () => {
  beforeAll(async () => {
    await storeDataset(host.app, 'LONG', '15m', LONG)
    await pastStartReport(host.app)
    // The first backtest reads the bars into the cache (its own bounded path) and compiles the code paths.
    const warm = await postKeepingBytes('/api/v11/trading/backtest', { ...MANY_TRADES, include: ['equity', 'trades'], equity_points: 1000 })
    expect(warm.status).toBe(200)
  }, 120_000)

  it('the whole 250k-bar curve and every trade', async () => {
    for (let round = 0; round < 2; round++) {
      const { res, health, stretch } = await besideHealth(`whole curve and trades (${round + 1})`,
        { ...MANY_TRADES, cash: 1e6 + round, include: ['equity', 'trades'] })
      expect(res.status).toBe(200)
      const answer = res.json()
      expect(answer.dataset.bars).toBe(BARS)
      expect(answer.equity.points).toHaveLength(BARS)
      expect(answer.equity).toMatchObject({ total_points: BARS, downsampled: false })
      expect(answer.equity.points[BARS - 1]).toEqual([LONG.ts[BARS - 1], answer.stats.equity_final])
      expect(answer.trades.length).toBeGreaterThan(20_000)
      expect(answer.trades.filter((t: { open: boolean }) => !t.open)).toHaveLength(answer.stats.trades)
      expect(answer.trades[0].entry_time).toBe(new Date(LONG.ts[answer.trades[0].entry_bar]!).toISOString())
      expect(health.failures).toBe(0)
      expect(stretch.maxCpuMs).toBeLessThan(STRETCH_BOUND_MS)
    }
  }, 120_000)

  it('100k equity points', async () => {
    for (let round = 0; round < 2; round++) {
      const { res, health, stretch } = await besideHealth(`100k equity points (${round + 1})`,
        { ...MANY_TRADES, cash: 2e6 + round, include: ['equity'], equity_points: 100_000 })
      expect(res.status).toBe(200)
      const answer = res.json()
      // A bucket keeps its low and its high: one point where the curve is flat (out of the market).
      expect(answer.equity.points.length).toBeLessThanOrEqual(100_000)
      expect(answer.equity.points.length).toBeGreaterThan(50_000)
      expect(answer.equity.points[0]).toEqual([LONG.ts[0], 2e6 + round])
      expect(answer.equity).toMatchObject({ total_points: BARS, downsampled: true })
      expect(answer.trades).toBeUndefined()
      expect(health.failures).toBe(0)
      expect(stretch.maxCpuMs).toBeLessThan(STRETCH_BOUND_MS)
    }
  }, 120_000)
})
