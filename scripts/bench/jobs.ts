// bench:jobs — what jobs cost, measured in one run with interleaved rounds and medians:
//  1. the async path (submit with Prefer: respond-async, wait for the final state, read …/result) against the sync
//     path (the call waits for its job) against the bare mill task (no job layer), same SAT instance, same app;
//  2. progress overhead: the bench:backtest workloads (walk-forward, grid, Monte Carlo) and bench:sat instances run
//     with the progress sink and cancel flag wired to a shared control buffer, against the same calls without hooks.
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { generateSyntheticBars, inSampleGrid, simulate, SYNTHETIC_PRESETS, walkForward } from '../../src/engines/trading/index.js'
import { cancelFlag, createControl, progressSink } from '../../src/mill/progress.js'
import { satWork } from '../../src/mill/tasks/logic.js'
import { answerSchema } from '../../src/json/serializer.js'
import { sat } from '../../src/caller/ops/logic/sat.js'
import { REPO_ROOT } from '../../src/version.js'
import { median } from './lib.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 7))
const fmt = (x: number, d = 2) => x.toFixed(d)
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const spreadOf = (xs: number[]) => `${fmt(median(xs), 3)} (spread ${fmt(Math.min(...xs), 3)}–${fmt(Math.max(...xs), 3)})`

console.log(`machine: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared 2-core); ${ROUNDS} interleaved rounds, medians`)

// ---- 1. async vs sync vs bare mill ---------------------------------------------------------------------------
const SAT_DIMACS = readFileSync(join(REPO_ROOT, '..', 'shared', 'data', 'sat', 'flat', 'flat50-1.cnf'), 'utf8')
const app = await buildApp({
  config: loadConfig({ DATABASE_PATH: ':memory:', RATE_LIMIT_PER_MIN: '0', MILL_THREADS: '1', LOG_LEVEL: 'silent', MAX_EVENT_LOOP_DELAY_MS: '60000' }),
  logger: false,
  tradingSeed: 'none',
})
await app.ready()
const PER_ROUND = Number(process.env.BENCH_CALLS ?? 60)
const body = { dimacs: SAT_DIMACS }
const limits = { maxVars: 200_000, maxClauses: 2_000_000, maxLiterals: 20_000_000 }
const members = { model: answerSchema(sat.output.shape.model), models: answerSchema(sat.output.shape.models) }

const paths = {
  bare: async () => {
    await app.mill.run('logic.sat', { dimacs: SAT_DIMACS, wantModel: true, limits, members }, { timeoutMs: 10_000, op: 'sat', owner: null })
  },
  sync: async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: body })
    if (res.statusCode !== 200) throw new Error(`sync ${res.statusCode}: ${res.body.slice(0, 200)}`)
  },
  async: async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: body, headers: { prefer: 'respond-async' } })
    if (res.statusCode !== 202) throw new Error(`async ${res.statusCode}: ${res.body.slice(0, 200)}`)
    const id = (JSON.parse(res.body) as { data: { id: string } }).data.id
    await app.jobs.settled(id)
    const result = await app.inject({ url: `/api/v1/jobs/${id}/result` })
    if (result.statusCode !== 200) throw new Error(`result ${result.statusCode}`)
  },
} as const
type PathName = keyof typeof paths
const wall: Record<PathName, number[]> = { bare: [], sync: [], async: [] }
for (const name of Object.keys(paths) as PathName[]) await paths[name]() // warm-up (worker start, JIT)
for (let r = 0; r < ROUNDS; r++) {
  const order = (Object.keys(paths) as PathName[])
  if (r % 2) order.reverse()
  for (const name of order) {
    const t = performance.now()
    for (let i = 0; i < PER_ROUND; i++) await paths[name]()
    wall[name].push((performance.now() - t) / PER_ROUND)
  }
  process.stderr.write(`\r1. round ${r + 1}/${ROUNDS}`)
}
process.stderr.write('\n')
await app.close()
console.log(`\n1. one SAT instance (flat50-1: 150 vars, 545 clauses), ${PER_ROUND} sequential calls per path per round, wall ms per call`)
for (const name of Object.keys(paths) as PathName[]) console.log(`   ${name.padEnd(6)} ${fmt(median(wall[name]), 3)} ms  (${wall[name].map((x) => fmt(x, 2)).join(' ')})`)
const ratio = (a: PathName, b: PathName) => wall[a].map((x, i) => x / wall[b][i]!)
const diff = (a: PathName, b: PathName) => wall[a].map((x, i) => x - wall[b][i]!)
console.log(`   sync / bare mill    ${spreadOf(ratio('sync', 'bare'))}×   (+${fmt(median(diff('sync', 'bare')), 3)} ms: HTTP route, envelope, job row written three times)`)
console.log(`   async / sync        ${spreadOf(ratio('async', 'sync'))}×   (+${fmt(median(diff('async', 'sync')), 3)} ms: the 202 and a second request for …/result)`)

// ---- 2. progress overhead -------------------------------------------------------------------------------------
const OPTIONS = { cash: 10_000, commission: 0.0002 }
const daily = generateSyntheticBars({ ...SYNTHETIC_PRESETS.daily10y.spec, bars: 2520 })
const fasts = Array.from({ length: 40 }, (_, i) => 2 + i)
const slows = Array.from({ length: 25 }, (_, i) => 50 + 5 * i)
const wfSpec = { strategies: ['sma_cross' as const], grid: { sma_cross: { fast: fasts, slow: slows } }, inSample: 756, outOfSample: 252, options: OPTIONS }
const mcSpec = { paths: 300, horizon: 252, method: 'bootstrap' as const, seed: 7 }

/** The hooks a job's task gets: a progress sink into a control buffer, the cancel flag, the deadline. */
function hooks() {
  const control = createControl()
  const progress = progressSink(control)
  const cancelled = cancelFlag(control)
  const deadline = Date.now() + 600_000
  return { progress, cancelled, stop: () => cancelled() || Date.now() > deadline }
}
const deadlineOnly = () => {
  const deadline = Date.now() + 600_000
  return () => Date.now() > deadline
}

/** Pigeon hole (n + 1 pigeons, n holes): UNSAT and a long search for CDCL, so the solver's own loop dominates. */
function pigeonHole(holes: number): string {
  const v = (p: number, h: number) => p * holes + h + 1
  const clauses: string[] = []
  for (let p = 0; p <= holes; p++) clauses.push([...Array(holes).keys()].map((h) => v(p, h)).join(' ') + ' 0')
  for (let h = 0; h < holes; h++) for (let a = 0; a <= holes; a++) for (let b = a + 1; b <= holes; b++) clauses.push(`-${v(a, h)} -${v(b, h)} 0`)
  return `p cnf ${(holes + 1) * holes} ${clauses.length}\n${clauses.join('\n')}\n`
}
const SAT_SET = [
  ...['par/par8-1.cnf', 'ii/ii8a2.cnf', 'logistics/logistics.a.cnf'].map((f) => readFileSync(join(REPO_ROOT, '..', 'shared', 'data', 'sat', f), 'utf8')),
  pigeonHole(8),
]

const workloads: Record<string, { plain: () => unknown; hooked: () => unknown }> = {
  'walk-forward 1,000 configs × 2,520 bars': {
    plain: () => walkForward(daily, { ...wfSpec, shouldStop: deadlineOnly() }),
    hooked: () => {
      const h = hooks()
      return walkForward(daily, {
        ...wfSpec,
        shouldStop: h.stop,
        onProgress: (p) => {
          h.progress.advance(p.configsDone, p.configs)
          h.progress.counter('configs_done', p.configsDone)
          h.progress.counter('folds_done', p.foldsDone)
        },
      })
    },
  },
  'grid 1,000 pairs × 2,520 bars': {
    plain: () => inSampleGrid(daily, { fast: fasts, slow: slows }, OPTIONS, 'sharpe_ratio', deadlineOnly()),
    hooked: () => {
      const h = hooks()
      return inSampleGrid(daily, { fast: fasts, slow: slows }, OPTIONS, 'sharpe_ratio', h.stop, (done) => h.progress.advance(done, 1000))
    },
  },
  'Monte Carlo 300 paths × 252 bars': {
    plain: () => simulate(daily, 'sma_cross', { fast: 10, slow: 30 }, OPTIONS, { ...mcSpec, shouldStop: deadlineOnly() }),
    hooked: () => {
      const h = hooks()
      return simulate(daily, 'sma_cross', { fast: 10, slow: 30 }, OPTIONS, { ...mcSpec, shouldStop: h.stop, onProgress: (d, t) => h.progress.advance(d, t) })
    },
  },
  'SAT: par8-1, ii8a2, logistics.a, pigeon hole 8': {
    plain: () => SAT_SET.map((dimacs) => satWork({ dimacs, wantModel: true, limits }, Date.now() + 600_000)),
    hooked: () => SAT_SET.map((dimacs) => {
      const control = createControl()
      return satWork({ dimacs, wantModel: true, limits }, Date.now() + 600_000, { progress: progressSink(control), cancelled: cancelFlag(control) })
    }),
  },
}

/** CPU ms per call, repeated until a sample takes ≥ 150 ms of CPU. */
function sampler(f: () => unknown): () => number {
  let reps = 1
  for (;;) {
    const t = cpuMs()
    for (let i = 0; i < reps; i++) f()
    if (cpuMs() - t >= 150 || reps >= 1 << 12) break
    reps *= 2
  }
  return () => {
    const t = cpuMs()
    for (let i = 0; i < reps; i++) f()
    return (cpuMs() - t) / reps
  }
}

const samples = Object.entries(workloads).map(([label, w]) => ({ label, plain: sampler(w.plain), hooked: sampler(w.hooked), ms: { plain: [] as number[], hooked: [] as number[] } }))
for (let r = 0; r < ROUNDS; r++) {
  for (const s of samples) {
    if (r % 2) {
      s.ms.hooked.push(s.hooked())
      s.ms.plain.push(s.plain())
    } else {
      s.ms.plain.push(s.plain())
      s.ms.hooked.push(s.hooked())
    }
  }
  process.stderr.write(`\r2. round ${r + 1}/${ROUNDS}`)
}
process.stderr.write('\n')
console.log('\n2. progress overhead: CPU ms per call with the progress sink + cancel flag / without (target ≤ 1.03)')
for (const s of samples) {
  const ratios = s.ms.hooked.map((h, i) => h / s.ms.plain[i]!)
  const verdict = median(ratios) <= 1.03 ? 'MET' : 'NOT MET'
  console.log(`   ${s.label.padEnd(44)} ${fmt(median(s.ms.plain), 2)} → ${fmt(median(s.ms.hooked), 2)} ms   ratio ${spreadOf(ratios)}  ${verdict}`)
}
