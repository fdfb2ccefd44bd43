// bench:sat — our CDCL solver against logic-solver (MiniSat compiled to JS) on every instance of ../shared/data/sat,
// in the same run; per family the median times and their ratio; minisat/picosat/cadical timed too when on PATH. Also our
// solver with DRAT proof logging, and with LRAT logging plus the independent check of UNSAT proofs, as ratios against
// the plain solver on the same instances.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from '../../src/version.js'
import { parseDimacs, toDimacs } from '../../src/engines/sat/dimacs.js'
import { CdclSolver } from '../../src/engines/sat/cdcl.js'
import { ProofLog, type ProofFormat } from '../../src/engines/sat/proof-log.js'
import { checkProof } from '../../src/engines/proof-check/index.js'
import { firstFalsifiedClause } from '../../src/engines/sat/verify.js'
import { clausesOf, type Cnf } from '../../src/engines/sat/cnf.js'

interface LogicTerm {
  readonly __term: unique symbol
}
interface LogicSolution {
  getTrueVars(): string[]
}
interface LogicSolverInstance {
  require(term: LogicTerm | string): void
  solve(): LogicSolution | null
}
interface LogicModule {
  Solver: new () => LogicSolverInstance
  or(terms: Array<LogicTerm | string>): LogicTerm
  not(term: string): LogicTerm
}

const Logic = createRequire(import.meta.url)('logic-solver') as LogicModule

const DATA_DIR = join(REPO_ROOT, '..', 'shared', 'data', 'sat')
const REPETITIONS = Math.max(1, Number(process.argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 7))

interface Instance {
  file: string
  family: string
  expected: 'SAT' | 'UNSAT'
  cnf: Cnf
  clauses: number[][]
  names: string[]
}

interface Timing {
  total: number
  solve: number
  /** CPU time of the process over the same span (ms): steadier than wall time on a shared, loaded machine. */
  cpu: number
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

type Answer = 'SAT' | 'UNSAT' | 'UNKNOWN'

function loadInstances(): Instance[] {
  const rows = readFileSync(join(DATA_DIR, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1)
  return rows.map((row) => {
    const [file, , , expected] = row.split('\t') as [string, string, string, 'SAT' | 'UNSAT']
    const { cnf } = parseDimacs(readFileSync(join(DATA_DIR, file), 'utf8'))
    const names = Array.from({ length: cnf.vars + 1 }, (_, v) => `v${v}`)
    return { file, family: file.split('/')[0]!, expected, cnf, clauses: clausesOf(cnf), names }
  })
}

/** How our solver runs: plain (proof "none"), writing a DRAT proof, or writing LRAT and checking it (UNSAT). */
type Mode = 'none' | 'drat' | 'lrat+check'
const MODES: Mode[] = ['none', 'drat', 'lrat+check']
const PROOF_BYTES = 1 << 28

/**
 * Ours: build the solver from the parsed CNF, solve, and verify the model (verification is part of every answer); with
 * a proof, write it, and in lrat+check mode check an UNSAT proof with the service's checker.
 */
function runOurs(instance: Instance, mode: Mode = 'none'): { answer: Answer; timing: Timing } {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  const format: ProofFormat | null = mode === 'none' ? null : mode === 'drat' ? 'drat' : 'lrat'
  const proof = format ? new ProofLog(format, PROOF_BYTES) : null
  const solver = new CdclSolver(instance.cnf, proof ? { proof } : {})
  const solveStart = performance.now()
  const outcome = solver.solve()
  const solveEnd = performance.now()
  if (outcome.status === 'SAT' && firstFalsifiedClause(instance.cnf, outcome.model!) >= 0) {
    throw new Error(`our model for ${instance.file} falsifies a clause`)
  }
  if (mode === 'lrat+check' && outcome.status === 'UNSAT') {
    const verdict = checkProof('lrat', instance.cnf, proof!.bytes()!)
    if (verdict.verdict !== 'verified') throw new Error(`the LRAT proof of ${instance.file} was not verified: ${verdict.reason}`)
  }
  const end = performance.now()
  return { answer: outcome.status, timing: { total: end - start, solve: solveEnd - solveStart, cpu: cpuMs(cpuStart) } }
}

/** logic-solver: a fresh Logic.Solver, one `require(Logic.or(...))` per clause, then solve() (which feeds MiniSat). */
function runLogicSolver(instance: Instance): { answer: Answer; timing: Timing } {
  const { names } = instance
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  const solver = new Logic.Solver()
  for (const clause of instance.clauses) {
    solver.require(Logic.or(clause.map((lit) => (lit > 0 ? names[lit]! : Logic.not(names[-lit]!)))))
  }
  const solveStart = performance.now()
  const solution = solver.solve()
  const end = performance.now()
  const cpu = cpuMs(cpuStart)
  if (solution) {
    const model = new Int8Array(instance.cnf.vars + 1).fill(-1)
    for (const name of solution.getTrueVars()) model[Number(name.slice(1))] = 1
    if (firstFalsifiedClause(instance.cnf, model) >= 0) throw new Error(`logic-solver's model for ${instance.file} falsifies a clause`)
  }
  return { answer: solution ? 'SAT' : 'UNSAT', timing: { total: end - start, solve: end - solveStart, cpu } }
}

function which(command: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' })
  return found.status === 0 ? found.stdout.trim() : null
}

/** A native solver as a physical reference: wall time of one process per instance (startup included). */
function runNative(binary: string, name: string, file: string): { answer: Answer; ms: number } {
  const start = performance.now()
  const args = name === 'minisat' ? ['-verb=0', file] : name === 'cadical' ? ['-q', '-n', file] : [file]
  const run = spawnSync(binary, args, { encoding: 'utf8' })
  const ms = performance.now() - start
  const answer: Answer = run.status === 10 ? 'SAT' : run.status === 20 ? 'UNSAT' : 'UNKNOWN'
  return { answer, ms }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function main(): void {
  if (!existsSync(join(DATA_DIR, 'manifest.tsv'))) {
    console.error(`bench:sat needs the SATLIB set in ${DATA_DIR}; it is absent, nothing measured.`)
    process.exitCode = 1
    return
  }
  const instances = loadInstances()
  const ours = new Map<string, Timing[]>()
  const theirs = new Map<string, Timing[]>()
  const withProof = new Map<Mode, Map<string, number[]>>(MODES.map((mode) => [mode, new Map()]))
  let disagreements = 0

  // One unrecorded warm-up pass so every side is measured with a warm JIT.
  for (const instance of instances) {
    for (const mode of MODES) runOurs(instance, mode)
    runLogicSolver(instance)
  }
  for (let rep = 0; rep < REPETITIONS; rep++) {
    for (const instance of instances) {
      // Alternate who goes first so neither side always runs on a cache the other warmed.
      let mine: ReturnType<typeof runOurs>
      let other: ReturnType<typeof runLogicSolver>
      if (rep % 2 === 0) {
        mine = runOurs(instance)
        other = runLogicSolver(instance)
      } else {
        other = runLogicSolver(instance)
        mine = runOurs(instance)
      }
      if (mine.answer !== instance.expected || other.answer !== instance.expected) {
        disagreements++
        console.error(`DISAGREE ${instance.file}: expected ${instance.expected}, ours ${mine.answer}, logic-solver ${other.answer}`)
      }
      ours.set(instance.file, [...(ours.get(instance.file) ?? []), mine.timing])
      theirs.set(instance.file, [...(theirs.get(instance.file) ?? []), other.timing])
      // The proof modes, in an order that turns each repetition, beside a plain run of their own.
      for (let k = 0; k < MODES.length; k++) {
        const mode = MODES[(k + rep) % MODES.length]!
        const run = runOurs(instance, mode)
        if (run.answer !== instance.expected) {
          disagreements++
          console.error(`DISAGREE ${instance.file}: expected ${instance.expected}, ours with ${mode} ${run.answer}`)
        }
        const times = withProof.get(mode)!
        times.set(instance.file, [...(times.get(instance.file) ?? []), run.timing.cpu])
      }
    }
  }

  const natives = ['minisat', 'picosat', 'cadical']
    .map((name) => ({ name, path: which(name) }))
    .filter((n): n is { name: string; path: string } => n.path !== null)
  const nativeMs = new Map<string, Map<string, number>>()
  if (natives.length > 0) {
    // SATLIB trailers trip native parsers: they get our re-serialised copy of each formula.
    const dir = mkdtempSync(join(tmpdir(), 'bench-sat-'))
    try {
      for (const instance of instances) {
        const path = join(dir, instance.file.replace(/\//g, '_'))
        writeFileSync(path, toDimacs(instance.cnf))
        for (const native of natives) {
          const times: number[] = []
          for (let rep = 0; rep < REPETITIONS; rep++) {
            const run = runNative(native.path, native.name, path)
            if (run.answer !== instance.expected) {
              disagreements++
              console.error(`DISAGREE ${instance.file}: expected ${instance.expected}, ${native.name} ${run.answer}`)
            }
            times.push(run.ms)
          }
          const perFile = nativeMs.get(native.name) ?? new Map<string, number>()
          perFile.set(instance.file, median(times))
          nativeMs.set(native.name, perFile)
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  const families = [...new Set(instances.map((i) => i.family))]
  const header = ['family', 'n', 'vars', 'ours ms', 'logic-solver ms', 'ratio', 'ours solve', 'ls solve', 'solve ratio']
  for (const native of natives) header.push(`${native.name} ms`)
  const rows: string[][] = []
  let slowerWhereItCounts = 0
  for (const family of families) {
    const members = instances.filter((i) => i.family === family)
    const sum = (pick: (i: Instance) => number) => members.reduce((acc, i) => acc + pick(i), 0)
    const oursTotal = sum((i) => median(ours.get(i.file)!.map((t) => t.total)))
    const theirsTotal = sum((i) => median(theirs.get(i.file)!.map((t) => t.total)))
    const oursSolve = sum((i) => median(ours.get(i.file)!.map((t) => t.solve)))
    const theirsSolve = sum((i) => median(theirs.get(i.file)!.map((t) => t.solve)))
    const maxVars = Math.max(...members.map((i) => i.cnf.vars))
    const ratio = theirsTotal / oursTotal
    if (maxVars >= 100 && ratio < 1) slowerWhereItCounts++
    const row = [
      family,
      String(members.length),
      String(maxVars),
      oursTotal.toFixed(2),
      theirsTotal.toFixed(2),
      `${ratio.toFixed(2)}x`,
      oursSolve.toFixed(2),
      theirsSolve.toFixed(2),
      `${(theirsSolve / oursSolve).toFixed(2)}x`,
    ]
    for (const native of natives) row.push(sum((i) => nativeMs.get(native.name)!.get(i.file)!).toFixed(2))
    rows.push(row)
  }

  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)))
  const line = (cells: string[]) => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')
  console.log(`bench:sat — ${instances.length} instances, ${REPETITIONS} repetitions after one warm-up pass, node ${process.version}`)
  console.log('times: per family, the sum over its instances of each instance\'s median (ms); ratio = logic-solver / ours (>1: ours faster)')
  console.log('"ms" = build the solver from parsed clauses + solve (+ model check for ours); "solve" = the solve() call alone')
  console.log("(logic-solver's solve() also hands the clauses to its MiniSat instance; its Logic.Solver setup is in \"ms\" only)")
  console.log(line(header))
  for (const row of rows) console.log(line(row))
  if (natives.length === 0) console.log('native reference: neither minisat nor picosat is on PATH; not timed')
  else console.log(`native reference (${natives.map((n) => n.name).join(', ')}): one process per instance, startup included`)
  console.log(`answers: ${disagreements === 0 ? 'all agree with the manifest' : `${disagreements} disagreements`}`)
  console.log(`families with ≥ 100 variables where ours is slower than logic-solver: ${slowerWhereItCounts}`)
  printProofCosts(instances, withProof)
  console.log(`load average (1, 5, 15 min): ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} CPUs`)
  if (disagreements > 0) process.exitCode = 1
}

/** Per family and in total: each proof mode's time over the plain solver's, on the same instances in the same run. */
function printProofCosts(instances: Instance[], withProof: Map<Mode, Map<string, number[]>>): void {
  const total = (mode: Mode, members: Instance[]) => members.reduce((acc, i) => acc + median(withProof.get(mode)!.get(i.file)!), 0)
  const header = ['family', 'n', 'none cpu ms', 'drat cpu ms', 'drat/none', 'lrat+check cpu ms', 'lrat+check/none']
  const row = (label: string, members: Instance[]) => {
    const [none, drat, lrat] = MODES.map((mode) => total(mode, members)) as [number, number, number]
    return [label, String(members.length), none.toFixed(2), drat.toFixed(2), `${(drat / none).toFixed(2)}x`, lrat.toFixed(2), `${(lrat / none).toFixed(2)}x`]
  }
  const families = [...new Set(instances.map((i) => i.family))]
  const rows = families.map((family) => row(family, instances.filter((i) => i.family === family)))
  rows.push(row('UNSAT (all)', instances.filter((i) => i.expected === 'UNSAT')), row('all', instances))
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)))
  const line = (cells: string[]) => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')
  console.log('')
  console.log('proofs: our solver with proof "none", writing DRAT, and writing LRAT then checking it (UNSAT only) with the service\'s checker')
  console.log('times: the sum of each instance\'s median CPU time of the process (ms), build + solve + model check (+ proof check);')
  console.log('CPU time, not wall time: on a shared machine waiting for a core is not work. Targets: drat ≤ 1.3x, lrat+check ≤ 2.5x')
  console.log(line(header))
  for (const r of rows) console.log(line(r))
}

main()
