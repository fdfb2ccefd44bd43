// bench:backtest — engine throughput against a plain naive JavaScript SMA-cross loop doing the same work, one run.
import { loadavg } from 'node:os'
import {
  executeEvents, generateSyntheticBars, inSampleGrid, runBacktest, strategyEvents, SYNTHETIC_PRESETS, type Bars,
} from '../../src/engines/trading/index.js'

const REPEATS = Number(process.env.BENCH_REPEATS ?? 15)
const OPTIONS = { cash: 10_000, commission: 0.0002 }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Median and best wall time (ms) of `repeats` runs after `warmups`; on a shared machine the best is the least disturbed. */
function timeIt(repeats: number, warmups: number, f: () => unknown): { median: number; best: number } {
  for (let i = 0; i < warmups; i++) f()
  const ms: number[] = []
  for (let i = 0; i < repeats; i++) {
    const t = performance.now()
    f()
    ms.push(performance.now() - t)
  }
  return { median: median(ms), best: Math.min(...ms) }
}

interface NaiveBar { open: number; close: number }

/**
 * The baseline: what a straightforward JavaScript implementation does — bars as an array of objects, each SMA
 * re-summed over its window on every bar, the same strict crossovers, fills at the next open, long only, default
 * size and commission at entry and exit. No statistics beyond the final equity.
 */
function naiveSmaCross(bars: NaiveBar[], fast: number, slow: number, cash0: number, commission: number): { equity: number; trades: number } {
  const smaAt = (i: number, n: number): number => {
    if (i < n - 1) return NaN
    let s = 0
    for (let j = i - n + 1; j <= i; j++) s += bars[j]!.close
    return s / n
  }
  let cash = cash0
  let units = 0
  let entry = 0
  let pending = 0
  let trades = 0
  let equity = cash0
  for (let i = slow; i < bars.length; i++) {
    const bar = bars[i]!
    if (pending !== 0) {
      if (units !== 0) {
        cash += units * (bar.open - entry) - units * bar.open * commission
        units = 0
        trades++
      }
      if (pending > 0) {
        const qty = Math.floor((cash * (1 - 2.220446049250313e-16)) / (bar.open + bar.open * commission))
        if (qty > 0) {
          units = qty
          entry = bar.open
          cash -= qty * bar.open * commission
        }
      }
      pending = 0
    }
    equity = cash + units * (bar.close - entry)
    const f0 = smaAt(i - 1, fast), s0 = smaAt(i - 1, slow), f1 = smaAt(i, fast), s1 = smaAt(i, slow)
    if (f0 < s0 && f1 > s1) pending = 1
    else if (s0 < f0 && s1 > f1) pending = -1
  }
  return { equity, trades }
}

function toNaive(bars: Bars): NaiveBar[] {
  return Array.from(bars.close, (close, i) => ({ open: bars.open[i]!, close }))
}

function line(label: string, value: string): void {
  console.log(`${label.padEnd(58)} ${value}`)
}

const intraday = generateSyntheticBars(SYNTHETIC_PRESETS.intraday100k.spec)
const daily = generateSyntheticBars(SYNTHETIC_PRESETS.daily10y.spec)
const n = intraday.close.length
console.log(`machine: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared; figures are medians of ${REPEATS} runs)`)
console.log(`single backtest: sma_cross(10, 30) long-only, commission ${OPTIONS.commission}, on ${n} synthetic 15-minute bars\n`)

const params = { fast: 10, slow: 30 }
const events = strategyEvents(intraday, 'sma_cross', params)
const fullMs = timeIt(REPEATS, 10, () => runBacktest(intraday, 'sma_cross', params, OPTIONS))
const coreMs = timeIt(REPEATS, 10, () => executeEvents(intraday, events, OPTIONS))
const naiveBars = toNaive(intraday)
const naiveMs = timeIt(Math.max(3, REPEATS >> 2), 1, () => naiveSmaCross(naiveBars, 10, 30, OPTIONS.cash, OPTIONS.commission))

const engine = runBacktest(intraday, 'sma_cross', params, OPTIONS)
const naive = naiveSmaCross(naiveBars, 10, 30, OPTIONS.cash, OPTIONS.commission)
const rate = (t: { median: number; best: number }): string =>
  `${(n / t.median / 1000).toFixed(2)} M bars/s median (${t.median.toFixed(2)} ms), best ${(n / t.best / 1000).toFixed(2)} M bars/s`
line('engine, full runBacktest (indicators, fills, all statistics)', rate(fullMs))
line('engine, simulation core (events → fills → equity per bar)', rate(coreMs))
line('naive JavaScript reference loop', rate(naiveMs))
line('ratio naive / engine full (speed-up, medians)', `${(naiveMs.median / fullMs.median).toFixed(1)}×`)
line('same result (final equity, closed trades)', `engine ${engine.stats.equity_final.toFixed(6)} / ${engine.stats.trades}, naive ${naive.equity.toFixed(6)} / ${naive.trades}`)
const verdict = (t: { median: number; best: number }): string =>
  n / t.median / 1000 >= 10 ? 'MET' : n / t.best / 1000 >= 10 ? 'MET only by the best run (machine busy)' : 'NOT MET'
line('target ≥ 10 M bar-steps/s, full runBacktest', verdict(fullMs))
line('target ≥ 10 M bar-steps/s, simulation core', verdict(coreMs))

const fast = Array.from({ length: 40 }, (_, i) => 2 + i)
const slow = Array.from({ length: 25 }, (_, i) => 50 + 5 * i)
const configs = fast.length * slow.length
console.log(`\ngrid: ${configs} sma_cross configurations (fast 2–41 × slow 50–170) on ${daily.close.length} synthetic daily bars (10 years)\n`)
let grid = inSampleGrid(daily, { fast, slow }, OPTIONS)
const gridMs = timeIt(Math.max(3, REPEATS >> 2), 1, () => { grid = inSampleGrid(daily, { fast, slow }, OPTIONS) })
const dailyNaive = toNaive(daily)
let naiveBest = -Infinity
const naiveGridMs = timeIt(1, 0, () => {
  for (const f of fast) for (const s of slow) naiveBest = Math.max(naiveBest, naiveSmaCross(dailyNaive, f, s, OPTIONS.cash, OPTIONS.commission).equity)
})
line('engine inSampleGrid (full statistics for every configuration)', `${gridMs.median.toFixed(1)} ms median, best ${gridMs.best.toFixed(1)} ms  (${grid.tried} configurations)`)
line('naive JavaScript reference loop (final equity only)', `${naiveGridMs.median.toFixed(1)} ms`)
line('ratio naive / engine (speed-up, medians)', `${(naiveGridMs.median / gridMs.median).toFixed(1)}×`)
const engineBest = Math.max(...grid.rows.map((r) => r.return_pct))
line('same best final equity', `engine ${(OPTIONS.cash * (1 + engineBest / 100)).toFixed(6)}, naive ${naiveBest.toFixed(6)}`)
line('target: grid < 1 s', gridMs.median < 1000 ? 'MET' : gridMs.best < 1000 ? 'MET only by the best run (machine busy)' : 'NOT MET')
