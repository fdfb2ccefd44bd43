// Properties of the execution engine: no look-ahead, equity accounting, commissions, sizing, finalize, shorting.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { executeEvents, pyFloorDiv, runBacktest } from './execution.js'
import { signalOf, STRATEGY_NAMES } from './strategies.js'
import { arbBars, barStep, barsFromSteps } from './test-bars.js'
import type { BacktestOptions, Bars, StrategyName } from './types.js'

const strategyCase = fc.constantFrom<[StrategyName, Record<string, number>]>(
  ['sma_cross', { fast: 3, slow: 8 }],
  ['ema_cross', { fast: 3, slow: 9 }],
  ['rsi_reversion', { period: 5, low: 40, high: 60 }],
  ['donchian_breakout', { period: 5 }],
  ['bollinger_reversion', { period: 6, k: 1 }],
  ['macd', { fast: 3, slow: 7, signal: 3 }],
  ['buy_and_hold', {}],
)
const optionsCase: fc.Arbitrary<BacktestOptions> = fc.record({
  cash: fc.double({ min: 1_000, max: 1_000_000, noNaN: true }),
  commission: fc.constantFrom(0, 0.001, 0.01),
  spread: fc.constantFrom(0, 0.0005),
  slippageBps: fc.constantFrom(0, 2),
  allowShort: fc.boolean(),
  finalizeTrades: fc.boolean(),
})

describe('executeEvents / runBacktest', () => {
  it('no look-ahead: changing bars from k on leaves every fill, trade and equity value before k unchanged', () => {
    fc.assert(fc.property(
      arbBars(30, 90), fc.array(barStep, { minLength: 90, maxLength: 90 }), fc.nat(), strategyCase, optionsCase,
      (bars, otherSteps, kSeed, [strategy, params], options) => {
        const n = bars.close.length
        const k = 1 + (kSeed % (n - 1))
        const other = barsFromSteps(otherSteps.slice(0, n), bars.close[0]! * 0.7)
        const changed: Bars = {
          ts: bars.ts, volume: bars.volume,
          open: Float64Array.from(bars.open, (v, i) => (i >= k ? other.open[i]! : v)),
          high: Float64Array.from(bars.high, (v, i) => (i >= k ? other.high[i]! : v)),
          low: Float64Array.from(bars.low, (v, i) => (i >= k ? other.low[i]! : v)),
          close: Float64Array.from(bars.close, (v, i) => (i >= k ? other.close[i]! : v)),
        }
        const a = runBacktest(bars, strategy, params, options)
        const b = runBacktest(changed, strategy, params, options)
        expect(Array.from(b.equity.subarray(0, k))).toEqual(Array.from(a.equity.subarray(0, k)))
        expect(Array.from(b.units.subarray(0, k))).toEqual(Array.from(a.units.subarray(0, k)))
        expect(Array.from(b.positions.subarray(0, k))).toEqual(Array.from(a.positions.subarray(0, k)))
        const entries = (r: typeof a) => r.trades.filter((t) => t.entryBar < k).map((t) => [t.entryBar, t.entryPrice, t.size])
        const exits = (r: typeof a) => r.trades.filter((t) => t.exitBar !== null && t.exitBar < k).map((t) => [t.exitBar, t.exitPrice, t.pnl])
        expect(entries(b)).toEqual(entries(a))
        expect(exits(b)).toEqual(exits(a))
      },
    ), { numRuns: 150 })
  })

  it('equity = cash + units × close at every bar, and the starting cash through the warm-up', () => {
    fc.assert(fc.property(arbBars(20, 120), strategyCase, optionsCase, (bars, [strategy, params], options) => {
      const r = runBacktest(bars, strategy, params, options)
      for (let i = 0; i < bars.close.length; i++) {
        const marked = r.cash[i]! + r.units[i]! * bars.close[i]!
        expect(Math.abs(r.equity[i]! - marked)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(r.equity[i]!)))
        if (i < r.startBar) expect(r.equity[i]).toBe(options.cash)
      }
    }), { numRuns: 150 })
  })

  it('commissions add up: per trade c·|size|·(entry + exit), in total, and in the final equity', () => {
    fc.assert(fc.property(arbBars(20, 120), strategyCase, optionsCase, (bars, [strategy, params], options) => {
      const r = runBacktest(bars, strategy, params, options)
      const closed = r.trades.filter((t) => t.exitBar !== null)
      let total = 0
      let realised = 0
      for (const t of closed) {
        const expected = options.commission * Math.abs(t.size) * (t.entryPrice + t.exitPrice!)
        expect(Math.abs(t.commissions - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, expected))
        expect(Math.abs(t.pnl - (t.size * (t.exitPrice! - t.entryPrice) - t.commissions))).toBeLessThanOrEqual(1e-7)
        total += t.commissions
        realised += t.pnl
      }
      expect(Math.abs(r.stats.commissions - total)).toBeLessThanOrEqual(1e-9 * Math.max(1, total))
      const open = r.trades.find((t) => t.exitBar === null)
      const unrealised = open ? open.pnl - open.commissions : 0
      const wipedOut = r.equity[r.equity.length - 1] === 0
      if (!wipedOut) {
        const expectedFinal = options.cash + realised + unrealised
        expect(Math.abs(r.stats.equity_final - expectedFinal)).toBeLessThanOrEqual(1e-7 * Math.max(1, Math.abs(expectedFinal)))
      }
    }), { numRuns: 150 })
  })

  it('a zero-commission round trip on a flat price is neutral, whatever the orders', () => {
    fc.assert(fc.property(
      fc.double({ min: 0.5, max: 5_000, noNaN: true }), fc.array(fc.constantFrom(-1, 0, 0, 1), { minLength: 3, maxLength: 80 }),
      fc.double({ min: 100, max: 1e6, noNaN: true }), fc.boolean(), fc.boolean(),
      (price, evs, cash, allowShort, finalizeTrades) => {
        const n = evs.length
        const flat = new Float64Array(n).fill(price)
        const bars: Bars = { ts: Float64Array.from({ length: n }, (_, i) => i * 86_400_000), open: flat, high: flat, low: flat, close: flat, volume: flat }
        const run = executeEvents(bars, { events: Int8Array.from(evs), warmup: 0 }, { cash, commission: 0, allowShort, finalizeTrades })
        for (const e of run.equity) expect(e).toBe(cash)
        for (const t of run.trades) expect(t.pnl).toBe(0)
      },
    ), { numRuns: 200 })
  })

  it('default size: the whole units floor(cash·(1−ε) / (open·(1 + c))), and one more unit would not be affordable', () => {
    fc.assert(fc.property(
      fc.double({ min: 1, max: 2_000, noNaN: true }), fc.double({ min: 50, max: 1e6, noNaN: true }), fc.constantFrom(0, 0.001, 0.002, 0.05),
      (open, cash, commission) => {
        const n = 4
        const o = new Float64Array(n).fill(open)
        const bars: Bars = { ts: Float64Array.from({ length: n }, (_, i) => i * 86_400_000), open: o, high: o, low: o, close: o, volume: o }
        const events = new Int8Array(n)
        events[1] = 1
        const run = executeEvents(bars, { events, warmup: 0 }, { cash, commission })
        const expected = Math.trunc(pyFloorDiv(cash * (1 - 2.220446049250313e-16), open + open * commission))
        if (expected === 0) {
          expect(run.trades).toHaveLength(0)
        } else {
          expect(run.trades[0]!.size).toBe(expected)
          expect((expected + 1) * open * (1 + commission)).toBeGreaterThan(cash * (1 - 1e-12))
        }
      },
    ), { numRuns: 300 })
  })

  it('a signal on bar i fills at bar i+1 open; a reversal closes first, then re-sizes from the freed cash', () => {
    const n = 8
    const prices = [10, 11, 12, 13, 12, 11, 10, 9]
    const p = Float64Array.from(prices)
    const bars: Bars = { ts: Float64Array.from({ length: n }, (_, i) => i * 86_400_000), open: p, high: p, low: p, close: p, volume: p }
    const events = new Int8Array(n)
    events[1] = 1
    events[3] = -1
    const run = executeEvents(bars, { events, warmup: 0 }, { cash: 1000, commission: 0, allowShort: true })
    expect(run.trades[0]).toMatchObject({ size: 83, entryBar: 2, entryPrice: 12, exitBar: 4, exitPrice: 12 })
    // the freed cash (1000) buys floor(1000 / 12) = 83 short units at the same open
    expect(run.trades[1]).toMatchObject({ size: -83, entryBar: 4, entryPrice: 12, exitBar: null })
    expect(run.equity[7]).toBeCloseTo(1000 + 83 * 3, 9)
  })

  it('finalize_trades closes the open trade at the last bar\'s open and counts it; without it the trade stays open', () => {
    const bars = barsFromSteps(Array.from({ length: 40 }, (_, i) => ({ r: i < 20 ? 0.01 : -0.005, gap: 0.001, up: 0.01, down: 0.01 })))
    const open = runBacktest(bars, 'buy_and_hold', {}, { cash: 10_000, commission: 0.001 })
    const fin = runBacktest(bars, 'buy_and_hold', {}, { cash: 10_000, commission: 0.001, finalizeTrades: true })
    expect(open.stats.trades).toBe(0)
    expect(open.trades[0]!.exitBar).toBeNull()
    expect(fin.stats.trades).toBe(1)
    expect(fin.trades[0]!.exitBar).toBe(39)
    expect(fin.trades[0]!.exitPrice).toBe(bars.open[39])
    expect(fin.units[39]).toBe(0)
  })

  it('long-only never holds a short; positions and signalOf agree with the latest bar', () => {
    fc.assert(fc.property(arbBars(20, 120), strategyCase, fc.boolean(), (bars, [strategy, params], allowShort) => {
      const r = runBacktest(bars, strategy, params, { cash: 10_000, commission: 0.001, allowShort })
      if (!allowShort) for (const u of r.units) expect(u).toBeGreaterThanOrEqual(0)
      const last = r.positions[r.positions.length - 1]!
      expect(signalOf(bars, strategy, params, allowShort)).toBe(last > 0 ? 'long' : last < 0 ? 'short' : 'flat')
    }), { numRuns: 100 })
  })

  it('every strategy runs with its defaults and rejects invalid parameters', () => {
    const bars = barsFromSteps(Array.from({ length: 120 }, (_, i) => ({ r: Math.sin(i / 5) * 0.02, gap: 0, up: 0.005, down: 0.005 })))
    for (const name of STRATEGY_NAMES) expect(runBacktest(bars, name, {}, { cash: 10_000, commission: 0 }).stats.start).toBe(bars.ts[0])
    expect(() => runBacktest(bars, 'sma_cross', { fast: 30, slow: 10 }, { cash: 1, commission: 0 })).toThrow(/fast must be smaller than slow/)
    expect(() => runBacktest(bars, 'sma_cross', { fast: 3, slow: 10, extra: 1 }, { cash: 1, commission: 0 })).toThrow()
  })

  it('pyFloorDiv follows Python float floor division, not Math.floor(a / b), near integers', () => {
    expect(pyFloorDiv(1, 0.1)).toBe(9) // Python: 1 // 0.1 == 9.0, while 1 / 0.1 == 10
    expect(pyFloorDiv(7, 2)).toBe(3)
    expect(pyFloorDiv(-7, 2)).toBe(-4)
  })
})
