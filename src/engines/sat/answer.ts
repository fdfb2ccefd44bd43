// From input to answer: parse (DIMACS or a flat formula), solve, check the model against the input, shape the result.
import { CdclSolver, type SatStatus, type SolveOptions, type SolverStats } from './cdcl.js'
import { parseDimacs, type DimacsLimits } from './dimacs.js'
import { evaluateFormula, type FlatFormula } from './formula.js'
import { tseitin } from './tseitin.js'
import { assertModel, signedModel, UnverifiedModelError } from './verify.js'

export interface SatStats extends SolverStats {
  /** Wall time of parsing, encoding, solving and checking, measured by the caller's clock. */
  time_ms: number
}

export interface SatAnswer {
  status: SatStatus
  /** For SAT with a model wanted: one signed literal per variable 1..vars. */
  model: number[] | null
  vars: number
  clauses: number
  /** True when a SAT model was checked against every input clause (false when there is no model to check). */
  verified: boolean
  stopped_by: 'deadline' | null
  stats: SatStats
  warnings: string[]
}

export interface JsonSatAnswer extends SatAnswer {
  assignment: Record<string, boolean> | null
  cnf: { vars: number; clauses: number; literals: number; aux_vars: number }
}

export interface RunOptions {
  wantModel: boolean
  deadline: number
  now: () => number
  /** Progress and cancellation hooks handed to the solver (see SolveOptions). */
  onProgress?: SolveOptions['onProgress']
  shouldStop?: SolveOptions['shouldStop']
}

const solveOptionsOf = (o: RunOptions): SolveOptions => ({
  deadline: o.deadline, now: o.now, ...(o.onProgress ? { onProgress: o.onProgress } : {}), ...(o.shouldStop ? { shouldStop: o.shouldStop } : {}),
})

export function solveDimacs(text: string, limits: DimacsLimits, options: RunOptions): SatAnswer {
  const started = options.now()
  const parsed = parseDimacs(text, limits)
  const { cnf } = parsed
  const outcome = new CdclSolver(cnf).solve(solveOptionsOf(options))
  let verified = false
  if (outcome.model) {
    assertModel(cnf, outcome.model)
    verified = true
  }
  return {
    status: outcome.status,
    model: outcome.model && options.wantModel ? signedModel(outcome.model, cnf.vars) : null,
    vars: cnf.vars,
    clauses: cnf.starts.length - 1,
    verified,
    stopped_by: outcome.stoppedBy === 'deadline' ? 'deadline' : null,
    stats: { ...outcome.stats, time_ms: options.now() - started },
    warnings: parsed.warnings,
  }
}

export function solveFormula(formula: FlatFormula, options: RunOptions): JsonSatAnswer {
  const started = options.now()
  const { cnf, namedVars } = tseitin(formula)
  const outcome = new CdclSolver(cnf).solve(solveOptionsOf(options))
  let verified = false
  let assignment: Record<string, boolean> | null = null
  let model: number[] | null = null
  if (outcome.model) {
    assertModel(cnf, outcome.model)
    const named = outcome.model.slice(1, namedVars + 1)
    if (evaluateFormula(formula, named)[formula.kind.length - 1] !== 1) {
      throw new UnverifiedModelError('encoding bug: a model of the CNF does not satisfy the formula')
    }
    verified = true
    if (options.wantModel) {
      // fromEntries defines own properties, so a variable named "__proto__" stays a plain key.
      assignment = Object.fromEntries(formula.names.map((name, i) => [name, named[i] === 1]))
      model = signedModel(outcome.model, namedVars)
    }
  }
  const clauses = cnf.starts.length - 1
  return {
    status: outcome.status,
    model,
    assignment,
    vars: namedVars,
    clauses,
    verified,
    stopped_by: outcome.stoppedBy === 'deadline' ? 'deadline' : null,
    stats: { ...outcome.stats, time_ms: options.now() - started },
    warnings: [],
    cnf: { vars: cnf.vars, clauses, literals: cnf.lits.length, aux_vars: cnf.vars - namedVars },
  }
}
