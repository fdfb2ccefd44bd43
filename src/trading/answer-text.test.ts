// The backtest answer's trades and curve points, written as JSON text in the mill (src/mill/tasks/trading-text.ts),
// must be the very text the answer schema's serializer (fast-json-stringify, as the routes compile it) writes from the
// views the loop used to build: checked on real backtests, and on the non-finite figures the views turned into null.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generateSyntheticBars, runBacktest, SYNTHETIC_PRESETS } from '../engines/trading/index.js'
import { downsampleIndices } from '../engines/trading/downsample.js'
import type { BacktestOptions, StrategyName, Trade } from '../engines/trading/types.js'
import { pointsBytes, tradesBytes } from '../mill/tasks/trading-text.js'
import { zodSerializerCompiler } from '../plugins/serializer.js'
import { finite, iso } from './present.js'
import { backtestAnswer, tradeSchema } from './schemas.js'

const serializerOf = (schema: z.ZodType) =>
  zodSerializerCompiler({ schema, method: 'POST', url: '', httpStatus: '200' }) as (data: unknown) => string
const writeTrades = serializerOf(z.array(tradeSchema))
const text = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
const tradesText = (trades: Trade[]) => text(tradesBytes(trades))
const pointsText = (ts: Float64Array, values: Float64Array, kept: Uint32Array) => text(pointsBytes(ts, values, kept))
const writePoints = serializerOf(backtestAnswer.shape.equity.unwrap().shape.points)

/** The trade view the loop built for the answer before the mill wrote the text: the oracle. */
const tradeView = (trade: Trade) => finite({
  size: trade.size,
  entry_bar: trade.entryBar,
  exit_bar: trade.exitBar,
  entry_time: iso(trade.entryTime),
  exit_time: trade.exitTime === null ? null : iso(trade.exitTime),
  entry_price: trade.entryPrice,
  exit_price: trade.exitPrice,
  pnl: trade.pnl,
  return_pct: trade.returnPct * 100,
  commissions: trade.commissions,
  open: trade.exitBar === null,
})

const intraday = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: 30_000 })
const daily = generateSyntheticBars(SYNTHETIC_PRESETS.daily10y.spec)

const runs: Array<[string, StrategyName, Record<string, number>, BacktestOptions, typeof daily]> = [
  ['sma_cross, many trades, one open at the end', 'sma_cross', { fast: 2, slow: 5 }, { cash: 10_000, commission: 0 }, intraday],
  ['shorts, costs, a fraction of equity', 'ema_cross', {}, { cash: 1e6, commission: 0.002, spread: 0.0003, slippageBps: 2, allowShort: true, size: { fraction: 0.37 } }, intraday],
  ['trades closed at the end', 'rsi_reversion', {}, { cash: 10_000, commission: 0.001, finalizeTrades: true }, daily],
  ['fixed units', 'macd', {}, { cash: 10_000, commission: 0, size: { units: 3 } }, daily],
]

describe('the backtest answer\'s pre-written parts equal the schema serializer\'s text', () => {
  for (const [label, strategy, params, options, bars] of runs) {
    it(label, () => {
      const { trades, equity } = runBacktest(bars, strategy, params, options)
      expect(trades.length).toBeGreaterThan(5)
      expect(tradesText(trades)).toBe(writeTrades(trades.map(tradeView)))
      for (const maxPoints of [bars.ts.length, 100_000, 600, 7, 2]) {
        const kept = downsampleIndices(equity, maxPoints)
        const pairs = Array.from(kept, (i) => [bars.ts[i]!, equity[i]!])
        expect(pointsText(bars.ts, equity, kept)).toBe(writePoints(pairs))
      }
    })
  }

  it('no trades, and figures the views turned into null', () => {
    expect(tradesText([])).toBe(writeTrades([]))
    const odd: Trade[] = [
      { size: -3, entryBar: 4, exitBar: null, entryPrice: Infinity, exitPrice: null, entryTime: 0, exitTime: null, pnl: NaN, returnPct: -Infinity, commissions: 0 },
      { size: 2.5e-7, entryBar: 0, exitBar: 9, entryPrice: 1e21, exitPrice: NaN, entryTime: -1, exitTime: 253402300799999, pnl: -0, returnPct: 1e-7, commissions: 5e-324 },
    ]
    expect(tradesText(odd)).toBe(writeTrades(odd.map(tradeView)))
    // A non-finite equity figure (none comes out of the engine) failed the whole answer; the text says null instead.
    expect(() => writePoints([[2, Infinity]])).toThrow(/does not match schema/)
    expect(pointsText(Float64Array.of(1, 2, 3), Float64Array.of(1.5, Infinity, NaN), Uint32Array.of(0, 1, 2))).toBe('[[1,1.5],[2,null],[3,null]]')
  })
})
