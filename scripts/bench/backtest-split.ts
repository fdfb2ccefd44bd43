// bench:backtest, the grid in wall time: the same grid in this thread and through a real mill, as one task and split
// across its workers (what /api/v10/trading/max-edge-signal does), against the plain loop in the same rounds; then
// what the split costs, each part measured on its own.
import { isDeepStrictEqual } from 'node:util'
import { gridPairCount, gridSlices, inSampleGrid, mergeGridResults, sma } from '../../src/engines/trading/index.js'
import type { Bars, BacktestOptions, GridResult, SmaGrid } from '../../src/engines/trading/index.js'
import { createMill } from '../../src/mill/pool.js'
import { runSplit } from '../../src/mill/split.js'
import type { GridPayload } from '../../src/mill/tasks/trading.js'
import { gridLoop } from './backtest-loops.js'
import { median } from './lib.js'

type Timed = () => Promise<unknown>

const wallMs = async (f: Timed, reps: number): Promise<number> => (await timed(f, reps)).wall

/** Wall time and CPU time of the whole process (every thread: the mill's workers too), per call. */
async function timed(f: Timed, reps: number): Promise<{ wall: number; cpu: number }> {
  const c = process.cpuUsage()
  const t = performance.now()
  for (let i = 0; i < reps; i++) await f()
  const wall = (performance.now() - t) / reps
  const used = process.cpuUsage(c)
  return { wall, cpu: (used.user + used.system) / 1000 / reps }
}

const stat = (xs: number[]) => ({ median: median(xs), lo: Math.min(...xs), hi: Math.max(...xs) })
const show = (r: { median: number; lo: number; hi: number }, unit = '×', d = 2) =>
  `${r.median.toFixed(d)}${unit} (spread ${r.lo.toFixed(d)}–${r.hi.toFixed(d)})`

export async function gridWallTable(bars: Bars, grid: SmaGrid, options: BacktestOptions, rounds: number,
  line: (label: string, value: string) => void): Promise<void> {
  const threads = Math.max(2, Number(process.env.MILL_THREADS ?? 2))
  // nice 0: on a shared machine, workers at the host's MILL_NICE=10 would time other people's processes, not ours
  const mill = createMill({ threads, maxQueue: 16, nice: 0 })
  const pairs = gridPairCount(grid)
  const payload: GridPayload = { bars, grid, options, maximize: 'sharpe_ratio' }
  const shares = gridSlices(pairs, threads).map((slice) => ({ ...payload, slice }))
  const runOpts = { timeoutMs: 60_000, owner: null }
  try {
    // the first split starts the workers beyond the warm first one (piscina starts them on demand): timed apart, once
    await mill.run('trading.inSampleGrid', payload, runOpts)
    const cold = await wallMs(() => runSplit(mill, 'trading.inSampleGrid', shares, runOpts), 1)
    const variants: Record<string, Timed> = {
      loop: async () => gridLoop(bars.open, bars.close, grid.fast, grid.slow, options.cash, options.commission),
      thread: async () => inSampleGrid(bars, grid, options),
      oneTask: () => runSplit(mill, 'trading.inSampleGrid', [payload], runOpts),
      split: () => runSplit(mill, 'trading.inSampleGrid', shares, runOpts),
      // the control: two whole grids at once on the two workers, the most a split could gain on this machine now
      twoWhole: () => runSplit(mill, 'trading.inSampleGrid', [payload, payload], runOpts),
    }
    for (const f of Object.values(variants)) for (let i = 0; i < 3; i++) await f()
    const ms: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, [] as number[]]))
    const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, [] as number[]]))
    for (let r = 0; r < rounds; r++) {
      const names = Object.keys(variants)
      for (const name of r % 2 ? names.reverse() : names) {
        const t = await timed(variants[name]!, 3)
        ms[name]!.push(t.wall)
        cpu[name]!.push(t.cpu)
      }
      process.stderr.write(`\rwall round ${r + 1}/${rounds}`)
    }
    process.stderr.write('\n')
    const vsLoop = (name: string) => stat(ms[name]!.map((t, i) => t / ms.loop![i]!))
    line('   same-rules loop, this thread (wall)', show(stat(ms.loop!), ' ms', 1))
    line('   engine inSampleGrid, this thread (wall)', `${show(stat(ms.thread!), ' ms', 1)}  ${show(vsLoop('thread'))} of the loop`)
    line('   through the mill, one task (wall)', `${show(stat(ms.oneTask!), ' ms', 1)}  ${show(vsLoop('oneTask'))}`)
    // what a caller waits, against a loop on one thread: not the engine's cost (which the CPU-time row above is)
    line(`   through the mill, split in ${shares.length} (wall, vs the one-thread loop)`, `${show(stat(ms.split!), ' ms', 1)}  ${show(vsLoop('split'))}`)
    line('   split / one task (wall)', show(stat(ms.split!.map((t, i) => t / ms.oneTask![i]!))))
    line('   control: two whole grids at once / one (wall; 1.0× = a free core each, 2.0× = no parallel gain possible)',
      show(stat(ms.twoWhole!.map((t, i) => t / ms.oneTask![i]!))))
    // CPU of every thread, so the load of other processes does not enter: what the split adds in work, not in waiting
    line('   CPU of the process, all threads: one task / split', `${show(stat(cpu.oneTask!), ' ms', 1)} / ${show(stat(cpu.split!), ' ms', 1)}`)
    line('   split / one task (CPU, all threads)', show(stat(cpu.split!.map((t, i) => t / cpu.oneTask![i]!))))
    // piscina hands the second share to the worker it starts for it: the route waits for that only for large shares
    line('   first split, its second worker not yet started (tsx), once', `${cold.toFixed(1)} ms`)

    const whole = inSampleGrid(bars, grid, options)
    const parts = await runSplit(mill, 'trading.inSampleGrid', shares, runOpts) as GridResult[]
    line('   cross-check: split answer equals the one-task answer (rows, best, stats, signal)', String(isDeepStrictEqual(mergeGridResults(parts), whole)))

    // the split's costs, each alone: a copy of the bars per share, each worker's own SMAs, one more round trip
    const clone = stat(await samples(rounds, async () => structuredClone(bars), 20))
    const trip = stat(await samples(rounds, () => mill.run('mill.spin', { ms: 0 }, runOpts), 20))
    const smaMs = (periods: Iterable<number>) => () => { for (const w of periods) sma(bars.close, w) }
    const own = (from: number, to: number): Set<number> => {
      const periods = new Set<number>()
      let k = 0
      for (const f of [...new Set(grid.fast)].sort((a, b) => a - b)) {
        for (const s of [...new Set(grid.slow)].sort((a, b) => a - b)) {
          if (!(f < s)) continue
          if (k >= from && k < to) periods.add(f).add(s)
          k++
        }
      }
      return periods
    }
    const allSmas = stat(await samples(rounds, async () => smaMs(own(0, pairs))(), 3))
    const shareSmas = stat(await samples(rounds, async () => { for (const s of shares) smaMs(own(s.slice.from, s.slice.to))() }, 3))
    line(`   split cost: structured clone of the bars (${bars.close.length} bars, 6 × 8 bytes each), per share`, show(clone, ' ms', 3))
    line('   split cost: one more task round trip (an empty task through the mill)', show(trip, ' ms', 3))
    line(`   split cost: SMAs, all ${shares.length} shares' own vs once for the grid (CPU, summed over workers)`,
      `${show(shareSmas, ' ms', 2)} vs ${show(allSmas, ' ms', 2)}`)
  } finally {
    await mill.close()
  }
}

async function samples(rounds: number, f: Timed, reps: number): Promise<number[]> {
  const out: number[] = []
  for (let r = 0; r < rounds; r++) out.push(await wallMs(f, reps))
  return out
}
