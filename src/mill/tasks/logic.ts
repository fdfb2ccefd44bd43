// Mill tasks of the logic domain: SAT solving (DIMACS or a JSON formula) under the soft deadline, and the
// analysis/quiz of large CNFs and formulas. Each work function is also what the operations run inline for small inputs.
import type { TaskContext, TaskTable } from '../types.js'
import { checkCnfLimits, cnfSource, SAT_LIMITS, type CnfSource } from '../../inputs/cnf.js'
import type { SatInput } from '../../inputs/sat.js'
import type { JsonsatInput } from '../../inputs/jsonsat.js'
import { DEFAULT_TIMEOUT_MS, PROOF_LIMITS, searchOptions } from '../../inputs/search.js'
import { joined, textOf } from '../../body-parse/formats.js'
import { clausesInput } from '../../inputs/clauses.js'
import { assignmentByName, quizInput, type QuizInput } from '../../inputs/quiz.js'
import { FORMULA_LIMITS, isSmallFormulaValue } from '../../inputs/formula.js'
import type { TaskRefusal, TaskResult } from './task-result.js'
import { answerFromBody, NEEDS_HEAVY, writtenAnswer, type AnswerFromBody, type BodyWork, type FromBodyResult } from './from-body.js'
import { AssumptionError, solveDimacs, solveFormula, type JsonSatAnswer, type SatAnswer, type SearchOptions } from '../../engines/sat/answer.js'
import type { Cnf } from '../../engines/sat/cnf.js'
import { checkedAnswer, cnfBlob, type CheckedAnswer, type TextBlob } from './sat-check.js'
import type { SolverStats } from '../../engines/sat/cdcl.js'
import { DimacsLimitError, DimacsSyntaxError, parseDimacs, type DimacsLimits } from '../../engines/sat/dimacs.js'
import { FormulaLimitError, FormulaSyntaxError, parseFormula, type FlatFormula, type FormulaLimits } from '../../engines/sat/formula.js'
import { analyzeClauses, DEFAULT_SIMPLIFY_OPTIONS, type ClauseAnalysis, type SimplifyOptions } from '../../engines/sat/simplify.js'
import { moving } from '../moving.js'
import { answerBytes, type AnswerSchema } from '../../json/serializer.js'
import { cnfAssignment, formulaAssignment, QuizInputError, quizCnf, quizFormula, type CnfAssignment, type QuizResult } from '../../engines/sat/quiz.js'

export interface SatTaskPayload {
  dimacs: string
  wantModel: boolean
  limits: DimacsLimits
  /** Assumptions, budgets, models to enumerate and the proof to write (none of them by default). */
  search?: SearchOptions
}

/**
 * A JSON formula: already flat (small ones are parsed on the event loop), or as JSON text parsed where the work runs
 * (text, because a structured clone of a value nested ~2,000+ levels overflows the receiving thread's stack).
 */
export type FormulaSource = FlatFormula | { json: string; limits: FormulaLimits; root: string }

export interface JsonSatTaskPayload {
  formula: FormulaSource
  wantModel: boolean
  /** Budgets and the proof to write. */
  search?: SearchOptions
  /** Return the Tseitin CNF as DIMACS text (it is returned beside a proof in any case), up to maxCnfBytes. */
  wantCnf?: boolean
  maxCnfBytes?: number
}

/** A /jsonsat answer checked like /sat's, with the CNF it solved as DIMACS bytes when asked for. */
export type CheckedJsonSatAnswer = CheckedAnswer<JsonSatAnswer> & { cnf_dimacs: TextBlob | null }

/**
 * A /jsonsat answer whose model and assignment (one entry per variable: 30k variables made 60k values) are written by
 * /jsonsat's response schema for them, as bytes that move to the loop: their clone back and writing there held the
 * loop 15–30 ms a stretch. The loop writes the rest of the answer around them (splicedAnswer).
 */
export type WrittenJsonSatAnswer = Omit<CheckedJsonSatAnswer, 'model' | 'assignment'> & { model: Uint8Array | null; assignment: Uint8Array | null }

/** A /sat answer whose model and models are written by /sat's response schema for them, as bytes that move to the loop. */
export type WrittenSatAnswer = Omit<CheckedAnswer<SatAnswer>, 'model' | 'models'> & { model: Uint8Array | null; models: Uint8Array | null }

/** The schemas of /sat's model and models. */
export interface SatMembers {
  model: AnswerSchema
  models: AnswerSchema
}

/** The schemas of /jsonsat's model and assignment. */
export interface JsonSatMembers {
  model: AnswerSchema
  assignment: AnswerSchema
}

export interface ClausesTaskPayload {
  source: CnfSource
  options: SimplifyOptions
}

export interface QuizTaskPayload {
  source: CnfSource
  assignment: CnfAssignment
  maxListed: number
}

export interface QuizFormulaTaskPayload {
  formula: FormulaSource
  assignment: Record<string, boolean>
  maxListed: number
}

/** The refusal an input error stands for, or null when the error is not about the input (a bug: rethrow it). */
export function refusalOfInputError(err: unknown): TaskRefusal | null {
  if (err instanceof DimacsSyntaxError) {
    return {
      code: 'invalid_input',
      reason: `the DIMACS text is malformed at line ${err.line}, column ${err.column}: ${err.detail}`,
      issues: [{ path: 'dimacs', message: err.message }],
    }
  }
  if (err instanceof DimacsLimitError) return { code: 'over_limit', reason: err.message, hints: { limit: err.limit, value: err.value } }
  if (err instanceof FormulaSyntaxError) {
    return { code: 'invalid_input', reason: `the formula is malformed (${err.issues[0]!.path}: ${err.issues[0]!.message})`, issues: err.issues }
  }
  if (err instanceof FormulaLimitError) return { code: 'over_limit', reason: err.message, hints: { limit: err.limit, value: err.value } }
  if (err instanceof AssumptionError) {
    return { code: 'invalid_input', reason: `the assumptions are malformed: ${err.message}`, issues: [{ path: `assumptions[${err.index}]`, message: err.message }] }
  }
  if (err instanceof QuizInputError) {
    return { code: 'invalid_input', reason: `the assignment is malformed (${err.issues[0]?.path}: ${err.issues[0]?.message})`, issues: err.issues }
  }
  return null
}

/** The work's value, or the refusal its input error stands for (any other error is rethrown). */
export function guarded<T>(work: () => { value: T; warnings: string[] }): TaskResult<T> {
  try {
    return { ok: true, ...work() }
  } catch (err) {
    const refusal = refusalOfInputError(err)
    if (refusal) return { ok: false, refusal }
    throw err
  }
}

function readSource(source: CnfSource): { cnf: Cnf; warnings: string[] } {
  if ('cnf' in source) return { cnf: source.cnf, warnings: [] }
  const parsed = parseDimacs(source.dimacs, source.limits)
  return { cnf: parsed.cnf, warnings: parsed.warnings }
}

/** A JSON formula's flat form under the declared limits, or the refusal of its syntax or size (as data). */
export const formulaOf = (value: unknown, root = 'formula'): TaskResult<FlatFormula> =>
  guarded(() => ({ value: parseFormula(value, FORMULA_LIMITS, root), warnings: [] }))

export function readFormula(source: FormulaSource): FlatFormula {
  return 'json' in source ? parseFormula(JSON.parse(source.json), source.limits, source.root) : source
}

/** The solver's counters as job progress (a search has no known total: fraction stays null) and the cancel flag. */
export function solverHooks(context: Pick<TaskContext, 'progress' | 'cancelled'> | undefined) {
  if (!context) return {}
  const { progress, cancelled } = context
  progress.phase('solving')
  return {
    onProgress: (stats: Readonly<SolverStats>) => {
      progress.counter('conflicts', stats.conflicts)
      progress.counter('decisions', stats.decisions)
      progress.counter('restarts', stats.restarts)
      progress.counter('learned', stats.learned)
    },
    shouldStop: cancelled,
  }
}

/** Solves, then checks an UNSAT answer's proof under the same deadline (the budget covers solve and check). */
export function satWork({ dimacs, wantModel, limits, search }: SatTaskPayload, deadline: number, context?: Pick<TaskContext, 'progress' | 'cancelled'>): TaskResult<CheckedAnswer<SatAnswer>> {
  return guarded(() => {
    const solved = solveDimacs(dimacs, limits, { ...search, wantModel, deadline, now: Date.now, ...solverHooks(context) })
    return { value: checkedAnswer(solved, deadline, Date.now), warnings: solved.answer.warnings }
  })
}

export function jsonSatWork({ formula, wantModel, search, wantCnf, maxCnfBytes = Number.POSITIVE_INFINITY }: JsonSatTaskPayload, deadline: number, context?: Pick<TaskContext, 'progress' | 'cancelled'>): TaskResult<CheckedJsonSatAnswer> {
  return guarded(() => {
    const solved = solveFormula(readFormula(formula), { ...search, wantModel, deadline, now: Date.now, ...solverHooks(context) })
    const checked = checkedAnswer(solved, deadline, Date.now)
    // A proof's clause ids are those of the CNF it refutes: the CNF goes with it.
    const cnf = wantCnf || checked.proof ? cnfBlob(solved.cnf) : null
    if (cnf && cnf.bytes > maxCnfBytes) {
      const warning = `the CNF is ${cnf.bytes} bytes of DIMACS, over the ${maxCnfBytes} kept: it is not stored`
      return { value: { ...checked, warnings: [...checked.warnings, warning], cnf_dimacs: null }, warnings: [warning] }
    }
    return { value: { ...checked, cnf_dimacs: cnf }, warnings: [] }
  })
}

export function clausesWork({ source, options }: ClausesTaskPayload): TaskResult<ClauseAnalysis> {
  return guarded(() => {
    const { cnf, warnings } = readSource(source)
    return { value: analyzeClauses(cnf, options), warnings }
  })
}

export function quizWork({ source, assignment, maxListed }: QuizTaskPayload): TaskResult<QuizResult> {
  return guarded(() => {
    const { cnf, warnings } = readSource(source)
    return { value: quizCnf(cnf, cnfAssignment(cnf.vars, assignment), maxListed), warnings }
  })
}

export function quizFormulaWork({ formula, assignment, maxListed }: QuizFormulaTaskPayload): TaskResult<QuizResult> {
  return guarded(() => {
    const flat = readFormula(formula)
    const { values, warnings } = formulaAssignment(flat, assignment)
    return { value: quizFormula(flat, values, maxListed), warnings }
  })
}

/**
 * /quiz's answer from its whole input, here: the formula or the CNF it names, checked against the assignment; a large
 * one (which the route sends to the mill) only where the client may have heavy work done.
 */
function quizAnswer(input: QuizInput, mayWorkHeavy: boolean): BodyWork<QuizResult & { checked: 'cnf' | 'formula' }> {
  const common = { maxListed: input.max_listed }
  let result: TaskResult<QuizResult>
  if (input.formula !== undefined) {
    const assignment = assignmentByName(input.assignment)
    if (!isSmallFormulaValue(input.formula) && !mayWorkHeavy) return NEEDS_HEAVY
    const formula = formulaOf(input.formula)
    result = formula.ok ? quizFormulaWork({ formula: formula.value, assignment, ...common }) : formula
  } else {
    const { source, small } = cnfSource(input)
    if (!small && !mayWorkHeavy) return NEEDS_HEAVY
    result = quizWork({ source, assignment: input.assignment, ...common })
  }
  return checkedAs(result, input.formula !== undefined ? 'formula' : 'cnf')
}

/** A quiz's result with what it checked, as /quiz answers it. */
function checkedAs<C extends 'cnf' | 'formula'>(result: TaskResult<QuizResult>, checked: C): TaskResult<QuizResult & { checked: C }> {
  return result.ok ? { ...result, value: { ...result.value, checked } } : result
}

/** /sat's task payload from its input. */
export const satPayloadOf = (i: SatInput): SatTaskPayload => ({ dimacs: i.dimacs, wantModel: i.want_model, limits: SAT_LIMITS, search: searchOptions(i) })

/** /jsonsat's task payload from its input and its formula (read on the loop when small, else in the mill). */
export const jsonsatPayloadOf = (i: JsonsatInput, formula: FormulaSource): JsonSatTaskPayload =>
  ({ formula, wantModel: i.want_model, search: searchOptions(i), wantCnf: i.want_cnf, maxCnfBytes: PROOF_LIMITS.maxBytes })

/**
 * A job's input from the JSON bytes it was stored as (a large body's: mill/tasks/stored-input.ts), and the deadline its
 * timeout_ms sets: such a run is given its job's whole budget (its route never read timeout_ms), and keeps to the input's.
 */
function storedInput<T extends { timeout_ms?: number | undefined }>(stored: readonly Uint8Array[], context: TaskContext): { input: T; deadline: number } {
  const input = JSON.parse(textOf(joined(stored))) as T
  return { input, deadline: Math.min(context.deadline, Date.now() + Math.max(1, input.timeout_ms ?? DEFAULT_TIMEOUT_MS)) }
}

/** A job's input stored as JSON bytes, copied here (a run may be tried again), with the schemas its answer's long members are written by. */
export interface StoredPayload<M> {
  stored: Uint8Array[]
  members: M
}

function writtenSat(result: TaskResult<CheckedAnswer<SatAnswer>>, members: SatMembers): TaskResult<WrittenSatAnswer> {
  if (!result.ok) return result
  const { model, models } = result.value
  const value = { ...result.value, model: model && answerBytes(members.model, model), models: models && answerBytes(members.models, models) }
  return movingBlobs({ ...result, value }, [value.model?.buffer, value.models?.buffer])
}

function writtenJsonSat(result: TaskResult<CheckedJsonSatAnswer>, members: JsonSatMembers): TaskResult<WrittenJsonSatAnswer> {
  if (!result.ok) return result
  const { model, assignment } = result.value
  const value = {
    ...result.value,
    model: model && answerBytes(members.model, model),
    assignment: assignment && answerBytes(members.assignment, assignment),
  }
  return movingBlobs({ ...result, value }, [value.model?.buffer, value.assignment?.buffer])
}

export const logicTasks = {
  // The model and the models enumerated (an answer near 8 MB at most) come written by /sat's schema for them.
  'logic.sat': ({ members, ...payload }: SatTaskPayload & { members: SatMembers }, context: TaskContext): TaskResult<WrittenSatAnswer> =>
    writtenSat(satWork(payload, context.deadline, context), members),
  'logic.satStored': ({ stored, members }: StoredPayload<SatMembers>, context: TaskContext): TaskResult<WrittenSatAnswer> => {
    const { input, deadline } = storedInput<SatInput>(stored, context)
    return writtenSat(satWork(satPayloadOf(input), deadline, context), members)
  },
  'logic.jsonsat': ({ members, ...payload }: JsonSatTaskPayload & { members: JsonSatMembers }, context: TaskContext): TaskResult<WrittenJsonSatAnswer> =>
    writtenJsonSat(jsonSatWork(payload, context.deadline, context), members),
  'logic.jsonsatStored': ({ stored, members }: StoredPayload<JsonSatMembers>, context: TaskContext): TaskResult<WrittenJsonSatAnswer> => {
    const { input, deadline } = storedInput<JsonsatInput>(stored, context)
    const formula = formulaOf(input.formula)
    return formula.ok ? writtenJsonSat(jsonSatWork(jsonsatPayloadOf(input, formula.value), deadline, context), members) : formula
  },
  // A large CNF's whole answer (a model of every variable, the simplified DIMACS: megabytes) comes written by /clauses' schema.
  'logic.clauses': ({ answer, ...payload }: ClausesTaskPayload & { answer: AnswerSchema }): TaskResult<Uint8Array> =>
    writtenAnswer(clausesWork(payload), answer),
  // /clauses from a large body's bytes: read as its route reads it, then worked and written as above.
  'logic.clausesBody': (payload: AnswerFromBody): FromBodyResult<Uint8Array> => answerFromBody(payload, clausesInput, (input) => {
    checkCnfLimits(input)
    const { source, small } = cnfSource(input)
    if (!small && !payload.mayWorkHeavy) return NEEDS_HEAVY
    return clausesWork({ source, options: { ...DEFAULT_SIMPLIFY_OPTIONS, listLimit: input.max_listed } })
  }),
  // /quiz from a large body's bytes: read as its route reads it, then the CNF or the formula it names checked here.
  'logic.quizBody': (payload: AnswerFromBody): FromBodyResult<Uint8Array> => answerFromBody(payload, quizInput, (input) => {
    checkCnfLimits(input)
    return quizAnswer(input, payload.mayWorkHeavy)
  }),
  // A large CNF's or formula's answer (up to max_listed falsified clauses, each as long as it is) comes written by /quiz's schema.
  'logic.quiz': ({ answer, ...payload }: QuizTaskPayload & { answer: AnswerSchema }): TaskResult<Uint8Array> =>
    writtenAnswer(checkedAs(quizWork(payload), 'cnf'), answer),
  'logic.quizFormula': ({ answer, ...payload }: QuizFormulaTaskPayload & { answer: AnswerSchema }): TaskResult<Uint8Array> =>
    writtenAnswer(checkedAs(quizFormulaWork(payload), 'formula'), answer),
} satisfies TaskTable

/** A proof's and a CNF's bytes move back to the loop with the answer instead of being copied. */
function movingBlobs<T extends { proof: TextBlob | null; cnf_dimacs?: TextBlob | null }>(result: TaskResult<T>, more: Array<ArrayBufferLike | undefined> = []): TaskResult<T> {
  if (!result.ok) return result
  const buffers = [result.value.proof?.text.buffer, result.value.cnf_dimacs?.text.buffer, ...more].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)
  return buffers.length > 0 ? moving(result, buffers) : result
}
