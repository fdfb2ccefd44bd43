// The backtest answer's trades and curve, written in the mill by the route's own schemas for them, are the text the
// route's serializer (fast-json-stringify) writes from the views the loop used to build: checked on real backtests,
// on the non-finite figures the views turn into null, and spliced into the whole answer.
import { describe, expect, it } from 'vitest'
import { generateSyntheticBars, runBacktest, SYNTHETIC_PRESETS } from '../engines/trading/index.js'
import { downsampleIndices } from '../engines/trading/downsample.js'
import type { BacktestOptions, Bars, StrategyName, Trade } from '../engines/trading/types.js'
import { tradingTasks } from '../mill/tasks/trading.js'
import { NO_PROGRESS } from '../mill/progress.js'
import { answerSchema, serializerOf, splicedAnswer } from '../json/serializer.js'
import { finite, iso, statsView } from './present.js'
import { backtestAnswer } from './schemas.js'
import { INLINE_TRADES_MAX } from '../engines/trading/answer-caps.js'

const tradesSchema = backtestAnswer.shape.trades.unwrap()
const equitySchema = backtestAnswer.shape.equity.unwrap()
const members = { trades: answerSchema(tradesSchema), equity: answerSchema(equitySchema) }
const context = { deadline: Date.now() + 60_000, progress: NO_PROGRESS, cancelled: () => false }
const text = (bytes: Uint8Array | null) => Buffer.from(bytes!).toString()

/** The trade view the loop built for the answer before the mill wrote it: the oracle. */
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

/** The mill task as a worker runs it: its payload and its answer cross a structured clone. */
function backtestInMill(bars: Bars, strategy: StrategyName, params: Record<string, number>, options: BacktestOptions, equityPoints: number) {
  const payload = { bars, strategy, params, options, members, shown: { equityPoints, trades: true, storedEquityPoints: null, keep: false } }
  return structuredClone(tradingTasks['trading.backtest'](structuredClone(payload), context))
}

const intraday = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: 30_000 })
const daily = generateSyntheticBars(SYNTHETIC_PRESETS.daily10y.spec)

const runs: Array<[string, StrategyName, Record<string, number>, BacktestOptions, Bars]> = [
  ['sma_cross, many trades, one open at the end', 'sma_cross', { fast: 2, slow: 5 }, { cash: 10_000, commission: 0 }, intraday],
  ['shorts, costs, a fraction of equity', 'ema_cross', {}, { cash: 1e6, commission: 0.002, spread: 0.0003, slippageBps: 2, allowShort: true, size: { fraction: 0.37 } }, intraday],
  ['trades closed at the end', 'rsi_reversion', {}, { cash: 10_000, commission: 0.001, finalizeTrades: true }, daily],
  ['fixed units', 'macd', {}, { cash: 10_000, commission: 0, size: { units: 3 } }, daily],
]

describe('the backtest answer\'s parts written in the mill equal the route serializer\'s text', () => {
  for (const [label, strategy, params, options, bars] of runs) {
    it(label, () => {
      const { trades, equity } = runBacktest(bars, strategy, params, options)
      expect(trades.length).toBeGreaterThan(5)
      for (const maxPoints of [bars.ts.length, 600, 2]) {
        const result = backtestInMill(bars, strategy, params, options, maxPoints)
        // The answer inlines the first trades; the rest are paged from the stored run.
        expect(text(result.trades)).toBe(serializerOf(tradesSchema)(trades.slice(0, INLINE_TRADES_MAX).map(tradeView)))
        expect(result.tradesTotal).toBe(trades.length)
        const kept = downsampleIndices(equity, maxPoints)
        const points = Array.from(kept, (i) => [bars.ts[i]!, equity[i]!])
        const total = bars.ts.length
        expect(text(result.equity)).toBe(serializerOf(equitySchema)({ points, total_points: total, downsampled: points.length < total }))
      }
    })
  }

  it('no trades, and figures the views turn into null', () => {
    const flat = generateSyntheticBars({ ...SYNTHETIC_PRESETS.daily10y.spec, bars: 40 })
    const result = backtestInMill(flat, 'sma_cross', { fast: 30, slow: 39 }, { cash: 10_000, commission: 0 }, 10)
    expect(text(result.trades)).toBe('[]')
    const odd: Trade[] = [
      { size: -3, entryBar: 4, exitBar: null, entryPrice: Infinity, exitPrice: null, entryTime: 0, exitTime: null, pnl: NaN, returnPct: -Infinity, commissions: 0 },
      { size: 2.5e-7, entryBar: 0, exitBar: 9, entryPrice: 1e21, exitPrice: NaN, entryTime: -1, exitTime: 253402300799999, pnl: -0, returnPct: 1e-7, commissions: 5e-324 },
    ]
    // The task's own view of these, through the same schema, against the oracle's.
    const views = odd.map(tradeView)
    expect(JSON.parse(serializerOf(tradesSchema)(views))).toMatchObject([{ entry_price: 0, pnl: 0, return_pct: 0 }, { exit_price: null }])
  })

  it('spliced into the whole answer, the bytes are the answer\'s serializer\'s', () => {
    const [, strategy, params, options, bars] = runs[2]!
    const result = backtestInMill(bars, strategy, params, options, 300)
    const { trades, equity } = runBacktest(bars, strategy, params, options)
    const answer = {
      run: { id: 7, inputs_digest: 'd"\\', fingerprint: 'f\u2028', same_inputs_as_run: null, created_at: iso(0), elapsed_ms: 1.5, stored: true },
      dataset: { id: 1, symbol: 'BTC/"USD"', timeframe: '1d', source: 'synthetic 😀', bars: bars.ts.length, from: iso(bars.ts[0]!), to: iso(bars.ts.at(-1)!) },
      strategy, params, settings: { cash: 1, commission: 0, spread: 0, slippage_bps: 0, allow_short: false, finalize_trades: true, size: null },
      stats: statsView(result.stats, result.annualization),
    }
    const spliced = splicedAnswer(backtestAnswer, answer, { trades: result.trades, equity: result.equity })
    const kept = downsampleIndices(equity, 300)
    const points = Array.from(kept, (i) => [bars.ts[i]!, equity[i]!])
    const whole = { ...answer, trades: trades.slice(0, INLINE_TRADES_MAX).map(tradeView), equity: { points, total_points: bars.ts.length, downsampled: true } }
    expect(spliced.text()).toBe(serializerOf(backtestAnswer)(whole))
    // Without the optional members, nothing is spliced and nothing is left of them.
    expect(splicedAnswer(backtestAnswer, answer, { trades: null, equity: null }).text()).toBe(serializerOf(backtestAnswer)(answer))
  })
})
