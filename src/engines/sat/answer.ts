// From input to answer: parse (DIMACS or a flat formula), solve (under assumptions and budgets, enumerating models or
// writing a proof when asked), check every model against the input, shape the result. Proofs are checked by the caller
// of this module (the mill's task), with a checker that shares no code with this solver.
import { CdclSolver, type SatStatus, type SolveOptions, type SolveOutcome, type SolverStats, type StopReason } from './cdcl.js'
import { clauseCountOf, type Cnf } from './cnf.js'
import { parseDimacs, type DimacsLimits } from './dimacs.js'
import { evaluateFormula, type FlatFormula } from './formula.js'
import { ProofLog, type ProofFormat } from './proof-log.js'
import { tseitin } from './tseitin.js'
import { assertModel, signedModel, UnverifiedModelError } from './verify.js'

export interface SatStats extends SolverStats {
  /** Wall time of parsing, encoding, solving and checking, measured by the caller's clock. */
  time_ms: number
}

/** The budgets a request may set; the answer's stopped_by names the one reached ('deadline' for the time budget). */
export type StoppedBy = Exclude<StopReason, 'cancelled'>

export interface SatAnswer {
  status: SatStatus
  /** For SAT with a model wanted: one signed literal per variable 1..vars (the first model when enumerating). */
  model: number[] | null
  vars: number
  clauses: number
  /** True when every SAT model was checked against every input clause; for UNSAT, set by the proof check. */
  verified: boolean
  stopped_by: StoppedBy | null
  stats: SatStats
  warnings: string[]
  /** UNSAT under assumptions: the failed assumptions ([] when the formula alone is UNSAT); null otherwise. */
  core: number[] | null
  /** With `models` asked: every model found (signed literals), when models are wanted; null otherwise. */
  models: number[][] | null
  /** With `models` asked: how many were wanted and found, and whether no further model exists. */
  enumeration: { requested: number; found: number; exhausted: boolean } | null
}

export interface JsonSatAnswer extends SatAnswer {
  assignment: Record<string, boolean> | null
  cnf: { vars: number; clauses: number; literals: number; aux_vars: number }
}

/** The proof of an UNSAT answer, as written, with the formula it refutes. */
export interface WrittenProof {
  format: ProofFormat
  /** The proof text, or null when it grew past maxBytes and was dropped. */
  bytes: Uint8Array | null
  steps: number
  maxBytes: number
  /** The input's clauses, followed under assumptions by the core's literals as unit clauses (in the core's order). */
  formula: Cnf
}

export interface Solved<A> {
  answer: A
  /** Set for an UNSAT answer when a proof was asked for. */
  proof: WrittenProof | null
  /** The CNF that was solved (the input, or the Tseitin encoding of a formula). */
  cnf: Cnf
}

/** How the search runs: assumptions, budgets, a proof or several models. */
export interface SearchOptions {
  assumptions?: number[]
  maxConflicts?: number
  maxDecisions?: number
  maxPropagations?: number
  /** Models to enumerate (blocking each found model in the solver's copy of the formula); default 1. */
  models?: number
  /** A proof of UNSAT to write; not with models > 1 (blocking clauses are no consequence of the formula). */
  proof?: { format: ProofFormat; maxBytes: number }
}

export interface RunOptions extends SearchOptions {
  wantModel: boolean
  deadline: number
  now: () => number
  /** Progress and cancellation hooks handed to the solver (see SolveOptions). */
  onProgress?: SolveOptions['onProgress']
  shouldStop?: SolveOptions['shouldStop']
}

/** An assumption outside the formula's variables: an input error, refused like malformed DIMACS. */
export class AssumptionError extends Error {
  override name = 'AssumptionError'
  constructor(
    readonly index: number,
    readonly literal: number,
    readonly vars: number,
  ) {
    super(`assumption ${literal} (assumptions[${index}]) is ${literal === 0 ? 'not a literal' : `outside the ${vars} variables`}`)
  }
}

interface SearchResult {
  last: SolveOutcome
  /** Models found, each checked against the CNF. */
  found: Int8Array[]
  proof: WrittenProof | null
}

function search(cnf: Cnf, blockedVars: number, options: RunOptions): SearchResult {
  const assumptions = options.assumptions ?? []
  assumptions.forEach((lit, index) => {
    if (lit === 0 || Math.abs(lit) > cnf.vars) throw new AssumptionError(index, lit, cnf.vars)
  })
  const wanted = options.models ?? 1
  if (options.proof && wanted > 1) throw new Error('a proof cannot be written while enumerating models')
  const log = options.proof ? new ProofLog(options.proof.format, options.proof.maxBytes) : null
  const solver = new CdclSolver(cnf, { ...(log ? { proof: log } : {}), reservedIds: assumptions.length })
  const solveOptions: SolveOptions = {
    deadline: options.deadline,
    now: options.now,
    assumptions,
    ...(options.maxConflicts !== undefined ? { maxConflicts: options.maxConflicts } : {}),
    ...(options.maxDecisions !== undefined ? { maxDecisions: options.maxDecisions } : {}),
    ...(options.maxPropagations !== undefined ? { maxPropagations: options.maxPropagations } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.shouldStop ? { shouldStop: options.shouldStop } : {}),
  }
  const found: Int8Array[] = []
  let last = solver.solve(solveOptions)
  while (last.status === 'SAT') {
    assertModel(cnf, last.model!)
    found.push(last.model!)
    if (found.length >= wanted) break
    if (blockedVars === cnf.vars) solver.addClause(solver.blockingClause())
    else {
      const blocking = new Int32Array(blockedVars)
      for (let v = 1; v <= blockedVars; v++) blocking[v - 1] = last.model![v] === 1 ? -v : v
      solver.addClause(blocking)
    }
    last = solver.solve(solveOptions)
  }
  const proof: WrittenProof | null =
    log && last.status === 'UNSAT'
      ? { format: log.format, bytes: log.bytes(), steps: log.steps, maxBytes: log.maxBytes, formula: withUnits(cnf, last.core ?? []) }
      : null
  return { last, found, proof }
}

/** The CNF with each literal appended as a unit clause. */
function withUnits(cnf: Cnf, units: number[]): Cnf {
  if (units.length === 0) return cnf
  const lits = new Int32Array(cnf.lits.length + units.length)
  lits.set(cnf.lits)
  lits.set(units, cnf.lits.length)
  const count = clauseCountOf(cnf)
  const starts = new Int32Array(count + units.length + 1)
  starts.set(cnf.starts)
  for (let k = 1; k <= units.length; k++) starts[count + k] = cnf.lits.length + k
  return { vars: cnf.vars, lits, starts }
}

/** The parts of an answer every SAT operation shares, from a search's outcome. */
function answerOf(result: SearchResult, options: RunOptions, modelVars: number) {
  const { last, found } = result
  const status: SatStatus = found.length > 0 ? 'SAT' : last.status
  const stoppedBy = last.status === 'UNKNOWN' && last.stoppedBy !== 'cancelled' ? last.stoppedBy : null
  const wanted = options.models
  return {
    status,
    model: found.length > 0 && options.wantModel ? signedModel(found[0]!, modelVars) : null,
    verified: found.length > 0,
    stopped_by: stoppedBy,
    core: status === 'UNSAT' ? last.core : null,
    models: wanted !== undefined && options.wantModel ? found.map((model) => signedModel(model, modelVars)) : null,
    enumeration: wanted !== undefined ? { requested: wanted, found: found.length, exhausted: found.length < wanted && last.status === 'UNSAT' } : null,
    stats: last.stats,
  }
}

export function solveDimacs(text: string, limits: DimacsLimits, options: RunOptions): Solved<SatAnswer> {
  const started = options.now()
  const parsed = parseDimacs(text, limits)
  const { cnf } = parsed
  const result = search(cnf, cnf.vars, options)
  const { stats, ...shared } = answerOf(result, options, cnf.vars)
  const answer: SatAnswer = {
    ...shared,
    vars: cnf.vars,
    clauses: clauseCountOf(cnf),
    stats: { ...stats, time_ms: options.now() - started },
    warnings: parsed.warnings,
  }
  return { answer, proof: result.proof, cnf }
}

export function solveFormula(formula: FlatFormula, options: RunOptions): Solved<JsonSatAnswer> {
  const started = options.now()
  const { cnf, namedVars } = tseitin(formula)
  // Enumeration blocks the named variables only: two models differing in auxiliary variables are one assignment.
  const result = search(cnf, namedVars, options)
  for (const model of result.found) {
    if (evaluateFormula(formula, model.slice(1, namedVars + 1))[formula.kind.length - 1] !== 1) {
      throw new UnverifiedModelError('encoding bug: a model of the CNF does not satisfy the formula')
    }
  }
  const { stats, ...shared } = answerOf(result, options, namedVars)
  const first = result.found[0]
  const clauses = clauseCountOf(cnf)
  const answer: JsonSatAnswer = {
    ...shared,
    // fromEntries defines own properties, so a variable named "__proto__" stays a plain key.
    assignment: first && options.wantModel ? Object.fromEntries(formula.names.map((name, i) => [name, first[i + 1] === 1])) : null,
    vars: namedVars,
    clauses,
    stats: { ...stats, time_ms: options.now() - started },
    warnings: [],
    cnf: { vars: cnf.vars, clauses, literals: cnf.lits.length, aux_vars: cnf.vars - namedVars },
  }
  return { answer, proof: result.proof, cnf }
}
