// The sweep kernels (lean broker, light statistics, window moments) against the full backtest they stand in for.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from './synthetic.js'
import { executeEvents, runBacktest } from './execution.js'
import { crossEvents, parseStrategyParams, strategyEvents, STRATEGY_NAMES } from './strategies.js'
import { sma } from './indicators.js'
import { LEAN_UNSUPPORTED, leanBroker, leanBuffers, leanExecute } from './lean-run.js'
import { LIGHT_STATS, lightStats, lightStatsScratch } from './light-stats.js'
import { WindowMoments } from './window-moments.js'
import { drawdowns, positiveDrawdowns } from './stats.js'
import { inSampleGrid } from './grid.js'
import { barsFromSteps, barStep } from './test-bars.js'
import type { BacktestOptions } from './types.js'

const daily = generateSyntheticBars({ ...SYNTHETIC_PRESETS.daily10y.spec, bars: 700 })
const intraday = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: 3000 })
const OPTIONS: BacktestOptions[] = [
  { cash: 10_000, commission: 0.001 },
  { cash: 10_000, commission: 0.002, spread: 0.001, slippageBps: 3, allowShort: true },
  { cash: 1_000, commission: 0.0005, size: { fraction: 0.4 } },
  { cash: 100_000, commission: 0, size: { units: 7 }, allowShort: true },
]

describe('lean broker and light statistics', () => {
  it('give every strategy the same equity, closed P&L and light figures as executeEvents + computeStats, bit for bit', () => {
    for (const bars of [daily, intraday]) {
      for (const options of OPTIONS) {
        const broker = leanBroker(options)!
        const buffers = leanBuffers(bars.close.length)
        const scratch = lightStatsScratch(bars.ts)
        for (const strategy of STRATEGY_NAMES) {
          const ev = strategyEvents(bars, strategy, parseStrategyParams(strategy, {}))
          const closed = leanExecute(bars, ev.events, ev.warmup, broker, buffers)
          const full = executeEvents(bars, ev, options)
          expect(closed).toBe(full.closedTrades)
          expect(Array.from(buffers.equity)).toEqual(Array.from(full.equity))
          expect(Array.from(buffers.pnl.subarray(0, closed))).toEqual(full.trades.slice(0, closed).map((t) => t.pnl))
          const light = lightStats(buffers, closed, scratch)
          const stats = runBacktest(bars, strategy, {}, options).stats
          for (const key of LIGHT_STATS) expect(light[key], `${strategy} ${key}`).toBe(stats[key])
        }
      }
    }
  })

  it('hold on random bars, and leave wipe-outs and finalized trades to the full broker', () => {
    fc.assert(fc.property(fc.array(barStep, { minLength: 40, maxLength: 200 }), (steps) => {
      const bars = barsFromSteps(steps)
      const options = { cash: 1000, commission: 0.001, allowShort: true }
      const ev = strategyEvents(bars, 'sma_cross', { fast: 3, slow: 9 })
      const buffers = leanBuffers(bars.close.length)
      const closed = leanExecute(bars, ev.events, ev.warmup, leanBroker(options)!, buffers)
      const full = runBacktest(bars, 'sma_cross', { fast: 3, slow: 9 }, options)
      if (full.equity.includes(0)) return expect(closed).toBe(LEAN_UNSUPPORTED)
      const light = lightStats(buffers, closed, lightStatsScratch(bars.ts))
      for (const key of LIGHT_STATS) expect(light[key]).toBe(full.stats[key])
    }), { numRuns: 60 })
    expect(leanBroker({ cash: 1, commission: 0, finalizeTrades: true })).toBeNull()
  })

  it('reads crossovers from two lines exactly as from crossEvents, and tracks computeStats\' max drawdown', () => {
    for (const options of OPTIONS) {
      for (const [f, sl] of [[5, 20], [10, 30], [3, 90]] as const) {
        const a = sma(daily.close, f), b = sma(daily.close, sl)
        const ev = crossEvents(a, b)
        const fromEvents = leanBuffers(daily.close.length), fromLines = leanBuffers(daily.close.length)
        const broker = leanBroker(options)!
        expect(leanExecute(daily, { fast: a, slow: b }, ev.warmup, broker, fromLines)).toBe(leanExecute(daily, ev.events, ev.warmup, broker, fromEvents))
        expect(Array.from(fromLines.equity)).toEqual(Array.from(fromEvents.equity))
        expect(fromLines.maxDrawdown).toBe(positiveDrawdowns(daily.ts, fromEvents.equity)!.maxDd)
      }
    }
  })

  it('the grid ranks by any statistic: a light one, or one only the full statistics have', () => {
    for (const maximize of ['sqn', 'alpha_pct'] as const) {
      const r = inSampleGrid(daily, { fast: [5, 10, 20], slow: [30, 60] }, OPTIONS[1]!, maximize)
      const direct = runBacktest(daily, 'sma_cross', { fast: r.best!.fast, slow: r.best!.slow }, OPTIONS[1]!)
      expect(r.best!.stats).toEqual(direct.stats)
      expect(r.rows.find((row) => row.fast === r.best!.fast && row.slow === r.best!.slow)!.score).toBe(direct.stats[maximize])
    }
  })
})

describe('WindowMoments', () => {
  it('matches a per-window Welford update to rounding, for overlapping windows and flat stretches', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.constant(0), fc.double({ min: -0.1, max: 0.1, noNaN: true })), { minLength: 30, maxLength: 300 }),
      fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 8 }),
      (values, cuts) => {
        const x = Float64Array.from(values)
        const windows = cuts.map(([a, b]) => ({ from: Math.min(a, b) % x.length, to: Math.max(a, b) % (x.length + 1) }))
          .map((w) => (w.to < w.from ? { from: w.to, to: w.from } : w))
        const m = new WindowMoments(windows)
        m.load(x)
        windows.forEach((w, i) => {
          let count = 0, mean = 0, m2 = 0
          for (let k = w.from; k < w.to; k++) {
            count++
            const d = x[k]! - mean
            mean += d / count
            m2 += d * (x[k]! - mean)
          }
          const sd = count < 2 ? NaN : Math.sqrt(m2 / (count - 1))
          const welford = sd > 1e-15 ? mean / sd : NaN
          const got = m.sharpe(i)
          if (Number.isNaN(welford)) return // a flat window: both call it undefined unless rounding leaves a speck
          expect(Math.abs(got - welford)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(welford)))
        })
      },
    ), { numRuns: 200 })
  })
})

describe('positiveDrawdowns', () => {
  it('finds the same depth, periods and peak as the per-bar scan on positive curves with ties and new peaks', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.constantFrom(100, 101, 99.5), fc.double({ min: 1, max: 200, noNaN: true })), { minLength: 1, maxLength: 80 }),
      (values) => {
        const equity = Float64Array.from(values)
        const ts = Float64Array.from(values, (_, i) => i * 86_400_000)
        expect(positiveDrawdowns(ts, equity)).toEqual(drawdowns(ts, equity))
      },
    ), { numRuns: 400 })
    expect(positiveDrawdowns(Float64Array.of(0, 1), Float64Array.of(1, 0))).toBeNull()
  })
})
