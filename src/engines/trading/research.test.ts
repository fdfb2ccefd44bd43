// Monte Carlo, walk-forward, the in-sample grid, the deflated Sharpe ratio, synthetic bars and the PRNG.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRng } from './prng.js'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from './synthetic.js'
import { simulate } from './simulate.js'
import { enumerateConfigs, walkForward } from './walk-forward.js'
import { gridPairCount, gridSlices, inSampleGrid, mergeGridResults } from './grid.js'
import { deflatedSharpeRatio, normalCdf, normalQuantile } from './deflated-sharpe.js'
import { runBacktest } from './execution.js'
import { signalOf } from './strategies.js'
import { sliceBars } from './test-bars.js'

const daily = generateSyntheticBars({ ...SYNTHETIC_PRESETS.daily10y.spec, bars: 900 })
const options = { cash: 10_000, commission: 0.001 }

describe('createRng', () => {
  it('is reproducible by seed and uniform enough', () => {
    const a = createRng(42), b = createRng(42), c = createRng(43)
    const xs = Array.from({ length: 5000 }, () => a.next())
    expect(Array.from({ length: 5000 }, () => b.next())).toEqual(xs)
    expect(c.next()).not.toBe(xs[0])
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02)
    const normals = Array.from({ length: 20000 }, () => a.normal())
    const m = normals.reduce((s, x) => s + x, 0) / normals.length
    const v = normals.reduce((s, x) => s + (x - m) ** 2, 0) / normals.length
    expect(Math.abs(m)).toBeLessThan(0.03)
    expect(Math.abs(v - 1)).toBeLessThan(0.05)
  })
})

describe('generateSyntheticBars', () => {
  it('is reproducible, valid OHLC, and skips weekends on the weekday calendar', () => {
    const again = generateSyntheticBars({ ...SYNTHETIC_PRESETS.daily10y.spec, bars: 900 })
    expect(Array.from(again.close)).toEqual(Array.from(daily.close))
    for (let i = 0; i < daily.ts.length; i++) {
      expect(daily.low[i]!).toBeLessThanOrEqual(Math.min(daily.open[i]!, daily.close[i]!))
      expect(daily.high[i]!).toBeGreaterThanOrEqual(Math.max(daily.open[i]!, daily.close[i]!))
      expect(daily.low[i]!).toBeGreaterThan(0)
      expect([0, 6]).not.toContain(new Date(daily.ts[i]!).getUTCDay())
      if (i) expect(daily.ts[i]!).toBeGreaterThan(daily.ts[i - 1]!)
    }
    const other = generateSyntheticBars({ ...SYNTHETIC_PRESETS.daily10y.spec, bars: 900, seed: 1 })
    expect(other.close[899]).not.toBe(daily.close[899])
  })

  it('the presets are a 10-year daily series and a 100k-bar intraday series', () => {
    const d = SYNTHETIC_PRESETS.daily10y.spec
    expect(d.bars).toBeGreaterThanOrEqual(2600)
    const full = generateSyntheticBars(d)
    expect((full.ts[full.ts.length - 1]! - full.ts[0]!) / (365.25 * 86_400_000)).toBeGreaterThanOrEqual(9.99)
    expect(SYNTHETIC_PRESETS.intraday100k.spec.bars).toBeGreaterThanOrEqual(100_000)
    expect(SYNTHETIC_PRESETS.intraday100k.spec.stepMs).toBeLessThan(86_400_000)
  })
})

describe('simulate', () => {
  it('is reproducible by seed, for both methods', () => {
    fc.assert(fc.property(fc.integer(), fc.constantFrom('bootstrap' as const, 'gbm' as const), fc.integer({ min: 1, max: 10 }), (seed, method, block) => {
      const spec = { paths: 12, horizon: 40, method, block, seed }
      const a = simulate(daily, 'sma_cross', { fast: 5, slow: 20 }, options, spec)
      const b = simulate(daily, 'sma_cross', { fast: 5, slow: 20 }, options, spec)
      expect(b).toEqual(a)
    }), { numRuns: 15 })
  })

  it('gives ordered percentiles, a probability, and CVaR at least VaR; another seed gives other paths', () => {
    const a = simulate(daily, 'ema_cross', { fast: 5, slow: 20 }, options, { paths: 200, horizon: 120, method: 'bootstrap', block: 5, seed: 7 })
    const b = simulate(daily, 'ema_cross', { fast: 5, slow: 20 }, options, { paths: 200, horizon: 120, method: 'bootstrap', block: 5, seed: 8 })
    for (const d of [a.return_pct, a.max_drawdown_pct, a.sharpe]) {
      expect(d.min).toBeLessThanOrEqual(d.p5)
      expect(d.p5).toBeLessThanOrEqual(d.p25)
      expect(d.p25).toBeLessThanOrEqual(d.p50)
      expect(d.p50).toBeLessThanOrEqual(d.p75)
      expect(d.p75).toBeLessThanOrEqual(d.p95)
      expect(d.p95).toBeLessThanOrEqual(d.max)
    }
    expect(a.max_drawdown_pct.max).toBeLessThanOrEqual(0)
    expect(a.probability_of_loss).toBeGreaterThanOrEqual(0)
    expect(a.probability_of_loss).toBeLessThanOrEqual(1)
    expect(a.var95_pct).toBeCloseTo(-a.return_pct.p5, 12)
    expect(a.cvar95_pct).toBeGreaterThanOrEqual(a.var95_pct)
    expect(a.cvar99_pct).toBeGreaterThanOrEqual(a.var99_pct)
    expect(b.return_pct.p50).not.toBe(a.return_pct.p50)
    expect(a.complete).toBe(true)
    expect(a.paths).toBe(200)
  })

  it('stops early when asked, reporting the paths it finished', () => {
    let calls = 0
    const r = simulate(daily, 'buy_and_hold', {}, options, { paths: 100, horizon: 20, method: 'gbm', seed: 1, shouldStop: () => ++calls > 10 })
    expect(r.complete).toBe(false)
    expect(r.paths).toBe(10)
  })
})

describe('deflated Sharpe ratio', () => {
  it('normal CDF and quantile agree with tabulated values and invert each other', () => {
    expect(normalCdf(0)).toBe(0.5)
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14)
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12)
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 10)
    fc.assert(fc.property(fc.double({ min: -8, max: 5, noNaN: true }), (x) => {
      // beyond +5, 1 − Φ(x) is below what a double near 1 can resolve
      expect(normalQuantile(normalCdf(x))).toBeCloseTo(x, 6)
    }))
  })

  it('more trials raise the bar: DSR ≤ PSR and falls as the number of trials grows', () => {
    const rng = createRng(3)
    const returns = Float64Array.from({ length: 1000 }, () => 0.0005 + 0.01 * rng.normal())
    const few = deflatedSharpeRatio({ sharpe: 0.06, trialSharpes: [0.06, 0.01, -0.02, 0.03], returns })
    const many = deflatedSharpeRatio({ sharpe: 0.06, trialSharpes: Array.from({ length: 400 }, () => 0.02 * rng.normal()), returns })
    expect(few.dsr!).toBeLessThanOrEqual(few.psr!)
    expect(many.sr0).toBeGreaterThan(few.sr0)
    expect(many.dsr!).toBeLessThan(few.dsr!)
  })
})

describe('walkForward', () => {
  const spec = {
    strategies: ['sma_cross', 'rsi_reversion', 'buy_and_hold'] as const,
    grid: { sma_cross: { fast: [5, 10, 20], slow: [10, 30, 60] } },
    inSample: 250,
    outOfSample: 100,
    options,
  }

  it('counts the valid configurations, tiles the folds, and signals like signalOf for the chosen config', () => {
    const r = walkForward(daily, { ...spec, strategies: [...spec.strategies] })
    const configs = enumerateConfigs([...spec.strategies], spec.grid)
    expect(configs.filter((c) => c.strategy === 'sma_cross')).toHaveLength(7) // pairs with fast < slow
    expect(r.configs_tried).toBe(configs.length)
    expect(r.folds).toHaveLength(Math.floor((900 - 250 - 100) / 100) + 1)
    expect(r.best).not.toBeNull()
    expect(r.signal).toBe(signalOf(daily, r.best!.strategy, r.best!.params))
    expect(r.deflated_sharpe!.trials).toBe(configs.length)
    expect(r.deflated_sharpe!.dsr!).toBeLessThanOrEqual(r.deflated_sharpe!.psr!)
    expect(r.oos_stats!.start).toBe(daily.ts[250])
    expect(r.leaderboard[0]).toEqual(r.best)
  })

  it('a fold\'s in-sample choice never depends on bars after its in-sample window', () => {
    const full = walkForward(daily, { ...spec, strategies: [...spec.strategies] })
    const fold = full.folds[1]!
    const cut = walkForward(sliceBars(daily, 0, fold.out_of_sample.to + 1), { ...spec, strategies: [...spec.strategies] })
    expect(cut.folds[1]!.chosen).toEqual(fold.chosen)
    expect(cut.folds[1]!.is_sharpe).toBe(fold.is_sharpe)
    expect(cut.folds[1]!.oos_return_pct).toBe(fold.oos_return_pct)
  })

  it('refuses windows longer than the data and grids over the limit', () => {
    expect(() => walkForward(daily, { ...spec, strategies: [...spec.strategies], inSample: 800, outOfSample: 200 })).toThrow(/exceeds/)
    expect(() => walkForward(daily, { ...spec, strategies: [...spec.strategies], maxConfigs: 3 })).toThrow(/over the limit of 3/)
  })
})

describe('inSampleGrid', () => {
  it('runs every fast < slow pair once and its best row is the plain backtest of that pair', () => {
    const r = inSampleGrid(daily, { fast: [5, 10, 15, 40], slow: [10, 20, 40] }, options)
    expect(r.tried).toBe(7) // 5:(10, 20, 40), 10:(20, 40), 15:(20, 40), 40: none
    expect(r.rows.every((row) => row.fast < row.slow)).toBe(true)
    const top = Math.max(...r.rows.map((row) => row.score ?? -Infinity))
    expect(r.best!.stats.sharpe_ratio).toBe(top)
    const direct = runBacktest(daily, 'sma_cross', { fast: r.best!.fast, slow: r.best!.slow }, options)
    expect(r.best!.stats).toEqual(direct.stats)
    expect(r.signal).toBe(signalOf(daily, 'sma_cross', { fast: r.best!.fast, slow: r.best!.slow }))
  })

  it('stops early when asked', () => {
    let calls = 0
    const r = inSampleGrid(daily, { fast: [5, 10], slow: [20, 30, 40] }, options, 'return_pct', () => ++calls > 2)
    expect(r.complete).toBe(false)
    expect(r.tried).toBe(2)
  })

  // 'trades' ties often (the tie must go to the earlier pair across slices too), 'sqn' takes the full-statistics path
  it('cut into slices and merged, answers exactly what one run over every pair answers', () => {
    const grid = { fast: [20, 3, 5, 8, 12, 3], slow: [15, 30, 10, 60, 25] }
    const pairs = gridPairCount(grid)
    expect(pairs).toBe(inSampleGrid(daily, grid, options).tried)
    for (const maximize of ['sharpe_ratio', 'trades', 'sqn', 'max_drawdown_pct'] as const) {
      const whole = inSampleGrid(daily, grid, options, maximize)
      for (const parts of [1, 2, 3, 5, pairs, pairs + 4]) {
        const slices = gridSlices(pairs, parts)
        expect(slices.map((s) => s.to - s.from).reduce((a, b) => a + b)).toBe(pairs)
        const merged = mergeGridResults(slices.map((slice) => inSampleGrid(daily, grid, options, maximize, undefined, undefined, slice)))
        expect(merged, `${maximize} in ${parts}`).toEqual(whole)
      }
    }
  })

  it('a slice stopped early keeps the pairs it ran and says the answer is incomplete', () => {
    const grid = { fast: [5, 10, 15], slow: [20, 30, 40] }
    const [first, second] = gridSlices(gridPairCount(grid), 2)
    let calls = 0
    const stopped = inSampleGrid(daily, grid, options, 'return_pct', () => ++calls > 1, undefined, second)
    const merged = mergeGridResults([inSampleGrid(daily, grid, options, 'return_pct', undefined, undefined, first), stopped])
    expect(merged.complete).toBe(false)
    expect(merged.tried).toBe(first!.to - first!.from + 1)
    expect(merged.rows).toEqual(inSampleGrid(daily, grid, options, 'return_pct').rows.slice(0, merged.tried))
  })
})
