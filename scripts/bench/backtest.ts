// bench:backtest — the research kernels against plain JavaScript loops with the same fill rules, in one run:
// interleaved rounds (the order alternates), each round's ratio engine/loop, median and spread of the ratios.
import { loadavg } from 'node:os'
import {
  executeEvents, generateSyntheticBars, inSampleGrid, runBacktest, strategyEvents, SYNTHETIC_PRESETS, walkForward,
} from '../../src/engines/trading/index.js'
import { gridWallTable } from './backtest-split.js'
import { closeFillLoop, gridLoop, sameRulesLoop, walkForwardLoop, type Fold } from './backtest-loops.js'
import { median } from './lib.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 9))
const OPTIONS = { cash: 10_000, commission: 0.0002 }

/** CPU time of this process in ms (user + system, GC threads included): unlike wall time, it does not count the
 *  time the scheduler gives other processes on a shared machine. */
const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** Runs `f` enough times that one sample takes ≥ `minMs` of CPU; returns CPU ms per call. */
function sampler(f: () => unknown, minMs: number): () => number {
  let reps = 1
  for (;;) {
    const t = cpuMs()
    for (let i = 0; i < reps; i++) f()
    if (cpuMs() - t >= minMs || reps >= 1 << 12) break
    reps *= 2
  }
  return () => {
    const t = cpuMs()
    for (let i = 0; i < reps; i++) f()
    return (cpuMs() - t) / reps
  }
}

interface Row {
  label: string
  fns: Record<string, () => unknown>
  ms: Record<string, number[]>
}

function row(label: string, fns: Record<string, () => unknown>): Row {
  return { label, fns, ms: Object.fromEntries(Object.keys(fns).map((name) => [name, [] as number[]])) }
}

/** Interleaved rounds: every variant of every row once per round, the order reversed on odd rounds. */
function runRounds(rows: Row[]): void {
  const samplers = rows.map((rw) => {
    const out: Record<string, () => number> = {}
    for (const [name, f] of Object.entries(rw.fns)) {
      for (let i = 0; i < 3; i++) f() // warm-up: optimised code before the first sample
      out[name] = sampler(f, 20)
    }
    return out
  })
  for (let r = 0; r < ROUNDS; r++) {
    rows.forEach((rw, k) => {
      const names = Object.keys(rw.fns)
      for (const name of r % 2 ? names.reverse() : names) rw.ms[name]!.push(samplers[k]![name]!())
    })
    process.stderr.write(`\rround ${r + 1}/${ROUNDS}`)
  }
  process.stderr.write('\n')
}

/** Per-round ratios a/b: median and min–max. */
function ratios(rw: Row, a: string, b: string): { median: number; lo: number; hi: number } {
  const xs = rw.ms[a]!.map((t, i) => t / rw.ms[b]![i]!)
  return { median: median(xs), lo: Math.min(...xs), hi: Math.max(...xs) }
}

const fmt = (x: number, d = 2): string => x.toFixed(d)
const spread = (r: { median: number; lo: number; hi: number }, d = 2): string => `${fmt(r.median, d)}× (spread ${fmt(r.lo, d)}–${fmt(r.hi, d)})`

const intraday = generateSyntheticBars(SYNTHETIC_PRESETS.intraday100k.spec)
const daily = generateSyntheticBars({ ...SYNTHETIC_PRESETS.daily10y.spec, bars: 2520 })
const n = intraday.close.length
const params = { fast: 10, slow: 30 }
const events = strategyEvents(intraday, 'sma_cross', params)

const single = row('single', {
  engine: () => runBacktest(intraday, 'sma_cross', params, OPTIONS),
  core: () => executeEvents(intraday, events, OPTIONS),
  loop: () => sameRulesLoop(intraday.open, intraday.close, 10, 30, OPTIONS.cash, OPTIONS.commission),
  closeLoop: () => closeFillLoop(intraday.close, 10, 30, OPTIONS.cash, OPTIONS.commission),
})

const fasts = Array.from({ length: 40 }, (_, i) => 2 + i)
const slows = Array.from({ length: 25 }, (_, i) => 50 + 5 * i)
const grid = row('grid', {
  engine: () => inSampleGrid(daily, { fast: fasts, slow: slows }, OPTIONS),
  loop: () => gridLoop(daily.open, daily.close, fasts, slows, OPTIONS.cash, OPTIONS.commission),
})

const IS = 756
const OOS = 252
const folds: Fold[] = []
for (let s = 0; s + IS + OOS <= daily.close.length; s += OOS) folds.push({ isFrom: s, oosFrom: s + IS, oosTo: s + IS + OOS })
const wfSpec = { strategies: ['sma_cross' as const], grid: { sma_cross: { fast: fasts, slow: slows } }, inSample: IS, outOfSample: OOS, options: OPTIONS }
const wf = row('walk-forward', {
  engine: () => walkForward(daily, wfSpec),
  loop: () => walkForwardLoop(daily.open, daily.close, fasts, slows, folds, OPTIONS.cash, OPTIONS.commission),
})

console.log(`machine: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared); ${ROUNDS} interleaved rounds of CPU time, ratios per round, median (spread min–max)`)
// BENCH_ONLY=single,grid,grid-wall,walk-forward (a comma list) runs part of the table
const only = process.env.BENCH_ONLY?.split(',')
const chosen = [single, grid, wf].filter((r) => !only || only.includes(r.label))
runRounds(chosen)
const ran = (r: Row): boolean => chosen.includes(r)

const line = (label: string, value: string): void => console.log(`${label.padEnd(64)} ${value}`)
const mbps = (ms: number[]): string => `${fmt(n / median(ms) / 1000, 1)} M bar-steps/s`
const verdict = (ok: boolean): string => (ok ? 'MET' : 'NOT MET')

if (ran(single)) {
console.log(`\n1. one backtest, sma_cross(10, 30) long only, commission ${OPTIONS.commission}, ${n} synthetic 15-minute bars`)
line('   same-rules plain loop (next open, whole units, no statistics)', mbps(single.ms.loop!))
line('   plain loop filling at the close (for reference)', mbps(single.ms.closeLoop!))
line('   engine runBacktest (indicators, fills, trades, all statistics)', mbps(single.ms.engine!))
line('   engine simulation core (executeEvents: events → fills → equity)', mbps(single.ms.core!))
const fullVsLoop = ratios(single, 'loop', 'engine')
const coreVsLoop = ratios(single, 'loop', 'core')
line('   full backtest speed / same-rules loop speed (target ≥ 0.5)', `${spread(fullVsLoop)}  ${verdict(fullVsLoop.median >= 0.5)}`)
line('   simulation core speed / same-rules loop speed (target ≥ 0.9)', `${spread(coreVsLoop)}  ${verdict(coreVsLoop.median >= 0.9)}`)
const eng = runBacktest(intraday, 'sma_cross', params, OPTIONS)
const lp = sameRulesLoop(intraday.open, intraday.close, 10, 30, OPTIONS.cash, OPTIONS.commission)
line('   cross-check: final equity / closed trades', `engine ${eng.stats.equity_final.toFixed(6)} / ${eng.stats.trades}, loop ${lp.equity.toFixed(6)} / ${lp.trades}`)

}
if (ran(grid)) {
console.log(`\n2. grid: ${fasts.length * slows.length} sma_cross configurations (fast 2–41 × slow 50–170) on ${daily.close.length} synthetic daily bars`)
line('   same-rules loop (each SMA once, final equity only)', `${fmt(median(grid.ms.loop!), 1)} ms`)
line('   engine inSampleGrid (full statistics of every configuration)', `${fmt(median(grid.ms.engine!), 1)} ms`)
const gridRatio = ratios(grid, 'engine', 'loop')
line('   engine time / loop time (target ≤ 2)', `${spread(gridRatio)}  ${verdict(gridRatio.median <= 2)}`)
const engineGrid = inSampleGrid(daily, { fast: fasts, slow: slows }, OPTIONS)
const loopGrid = gridLoop(daily.open, daily.close, fasts, slows, OPTIONS.cash, OPTIONS.commission)
let agree = 0
engineGrid.rows.forEach((r, i) => {
  const loopReturn = ((loopGrid[i]! - OPTIONS.cash) / OPTIONS.cash) * 100
  if (Math.abs(loopReturn - r.return_pct) <= 1e-9 * Math.max(1, Math.abs(r.return_pct))) agree++
})
line('   cross-check: configurations whose final return agrees with the loop', `${agree}/${engineGrid.rows.length}`)

}
if (!only || only.includes('grid-wall')) {
console.log(`\n2b. the same grid in wall time, ${ROUNDS} interleaved rounds; a mill of ${Math.max(2, Number(process.env.MILL_THREADS ?? 2))} workers (MILL_THREADS, at least 2)`)
console.log('    (on 2 cores the split’s second worker takes the core the event loop would serve requests on: a host that')
console.log('    is also answering requests sees less of the gain)')
await gridWallTable(daily, { fast: fasts, slow: slows }, OPTIONS, ROUNDS, line)
}
if (ran(wf)) {
console.log(`\n3. walk-forward: the same ${fasts.length * slows.length} configurations × ${folds.length} folds (in-sample ${IS}, out-of-sample ${OOS} bars)`)
line('   loop over the same folds (in-sample winner by return)', `${fmt(median(wf.ms.loop!), 1)} ms`)
line('   engine walkForward (per-fold Sharpe, leaderboard, deflated Sharpe)', `${fmt(median(wf.ms.engine!), 1)} ms`)
const wfRatio = ratios(wf, 'engine', 'loop')
line('   engine time / loop time (target ≤ 2.5)', `${spread(wfRatio)}  ${verdict(wfRatio.median <= 2.5)}`)
}
