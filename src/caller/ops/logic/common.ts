// What the logic operations share: declared limits, schema atoms, CNF input handling and refusal translation.
import { z } from 'zod'
import { Refusal } from '../../../http/refusal.js'
import type { OperationContext } from '../../operation.js'
import { budgetOf, MAX_TIMEOUT_MS, type RunOptions } from '../../../mill/pool.js'
import { cnfFromClauses, type Cnf } from '../../../engines/sat/cnf.js'
import { peekDimacsHeader, type DimacsLimits } from '../../../engines/sat/dimacs.js'
import { parseFormula, type FlatFormula, type FormulaLimits } from '../../../engines/sat/formula.js'
import type { SearchOptions } from '../../../engines/sat/answer.js'
import { guarded, type CnfSource, type TaskResult } from '../../../mill/tasks/logic.js'

/** Declared limits of the logic lobe (SPEC §1.2 over_limit): each refusal names the limit and its value. */
// Variables are bounded harder than clauses: a model lists every variable, so a 40-byte header declaring 2,000,000
// made a 17 MB answer whose serialising held the loop 0.3–0.6 s; 100,000 keeps an answer near 1 MB.
export const SAT_LIMITS: DimacsLimits = { maxVars: 100_000, maxClauses: 5_000_000, maxLiterals: 10_000_000 }
export const FORMULA_LIMITS: FormulaLimits = {
  maxNodes: 2_000_000,
  maxVars: 100_000,
  maxNameLength: 256,
  maxCounterCells: 10_000_000,
}
/**
 * /clauses and /quiz answer small inputs on the event loop and send larger ones to the mill. Small means a few
 * milliseconds of work, which grows with the text, the literals and the declared variables alike.
 */
export const INLINE_MAX_DIMACS_CHARS = 64 * 1024
export const INLINE_MAX_LITERALS = 16_384
export const INLINE_MAX_VARS = 16_384
/** A JSON formula is parsed on the event loop (~1 µs a node) only when it holds at most this many values. */
export const INLINE_MAX_NODES = 16_384

export const timeoutMs = z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Time budget in ms (default 10 000, max 60 000)')

export const dimacsText = z
  .string()
  .max(64 * 1024 * 1024)
  .describe("DIMACS CNF text: 'c' comments, one 'p cnf <vars> <clauses>' header, clauses ended by 0 (SATLIB '%' trailers accepted)")

export const jsonClauses = z
  .array(z.array(z.number().int()))
  .describe('Clauses as arrays of non-zero signed integers (DIMACS literals without the closing 0)')

export const formulaInput = z
  .unknown()
  .refine((value) => value !== undefined, { message: 'a formula is required' })
  .describe(
    'F = {"var": name} | {"not": F} | {"and": [F…]} | {"or": [F…]} | {"implies": [F, F]} | {"iff": [F, F]} | {"xor": [F…]} | ' +
      '{"atMost": {"k": int, "of": [F…]}} | {"atLeast": …} | {"exactly": …} | true | false',
  )

export const statsSchema = z.object({
  decisions: z.number().int(),
  conflicts: z.number().int(),
  propagations: z.number().int(),
  restarts: z.number().int(),
  learned: z.number().int(),
  time_ms: z.number().describe('Measured: wall time in the worker (parse, encode, solve, check)'),
  check_ms: z.number().nullable().describe('Measured: wall time of the proof check alone; null when none ran'),
})

/** A proof is kept to this size; past it the proof is dropped (the UNSAT answer then says it is unchecked). */
export const PROOF_LIMITS = { maxBytes: 32 * 1024 * 1024 }
const MAX_BUDGET = Number.MAX_SAFE_INTEGER

/** The request's search settings every SAT operation takes: budgets beside timeout_ms, and the proof to write. */
export const searchFields = {
  max_conflicts: z.number().int().min(1).max(MAX_BUDGET).optional()
    .describe('Stop with UNKNOWN (stopped_by "conflicts") once this many conflicts were met; the answer\'s stats.conflicts is then exactly this'),
  max_decisions: z.number().int().min(1).max(MAX_BUDGET).optional()
    .describe('Stop with UNKNOWN (stopped_by "decisions") once this many branching decisions were made (assumptions do not count)'),
  max_propagations: z.number().int().min(1).max(MAX_BUDGET).optional()
    .describe('Stop with UNKNOWN (stopped_by "propagations") once this many literals were propagated'),
  proof: z.enum(['none', 'drat', 'lrat']).default('none').describe(
    'Write a proof of an UNSAT answer, check it with the service\'s independent checker, and store it as a pin (needs scope ' +
      `pin:write): "drat" (lemmas and deletions) or "lrat" (clause ids and hints). Default "none". Proofs over ${PROOF_LIMITS.maxBytes} bytes are dropped`,
  ),
}

/** The engine's search options from an input's fields (absent fields stay absent). */
export function searchOptions(i: {
  max_conflicts?: number | undefined
  max_decisions?: number | undefined
  max_propagations?: number | undefined
  proof: 'none' | 'drat' | 'lrat'
  assumptions?: number[] | undefined
  models?: number | undefined
}): SearchOptions {
  return {
    ...(i.max_conflicts !== undefined ? { maxConflicts: i.max_conflicts } : {}),
    ...(i.max_decisions !== undefined ? { maxDecisions: i.max_decisions } : {}),
    ...(i.max_propagations !== undefined ? { maxPropagations: i.max_propagations } : {}),
    ...(i.assumptions !== undefined ? { assumptions: i.assumptions } : {}),
    ...(i.models !== undefined ? { models: i.models } : {}),
    ...(i.proof !== 'none' ? { proof: { format: i.proof, maxBytes: PROOF_LIMITS.maxBytes } } : {}),
  }
}

export const proofSchema = z
  .object({
    format: z.enum(['drat', 'lrat']),
    steps: z.number().int().describe('Lines of the proof: added lemmas and deletions'),
    bytes: z.number().int(),
    sha256: z.string().describe('SHA-256 of the proof text, hex'),
    url: z.string().describe('GET it (a path on this host) for the proof as text/plain, in the standard textual format'),
  })
  .nullable()
  .describe('UNSAT with a proof asked for: the stored proof. Clause i of the formula is clause id i; under assumptions the formula ' +
    'is followed by the core\'s literals as unit clauses, in the order of core. Null otherwise')

export const satFields = {
  status: z.enum(['SAT', 'UNSAT', 'UNKNOWN']),
  model: z
    .array(z.number().int())
    .nullable()
    .describe('SAT and want_model: every variable 1..vars once, as a signed literal (negative = false); otherwise null'),
  vars: z.number().int(),
  clauses: z.number().int(),
  verified: z.boolean().describe('SAT: every model was checked against every input clause. UNSAT: the proof was accepted by the checker ' +
    'named in checker. False otherwise (verification says why)'),
  verification: z.object({ reason: z.string() }).nullable().describe('Why verified is false; null when it is true'),
  checker: z
    .object({
      name: z.string(),
      version: z.string(),
      format: z.enum(['drat', 'lrat']),
      method: z.string(),
      steps_checked: z.number().int(),
    })
    .nullable()
    .describe('The independent proof checker that ran on an UNSAT answer, verified or not; null when none ran'),
  proof: proofSchema,
  stopped_by: z.enum(['deadline', 'conflicts', 'decisions', 'propagations']).nullable()
    .describe('Status UNKNOWN: the budget that ran out (timeout_ms is "deadline"); null otherwise'),
  stats: statsSchema,
  warnings: z.array(z.string()),
}

export function limitRefusal(limit: string, value: number, reason: string): Refusal {
  return new Refusal('over_limit', reason, { hints: { limit, value } })
}

/** The value of a task result, or the refusal it carries. */
export function valueOf<T>(result: TaskResult<T>): { value: T; warnings: string[] } {
  if (result.ok) return result
  const { code, reason, issues, hints } = result.refusal
  throw new Refusal(code, reason, { ...(issues ? { issues } : {}), ...(hints ? { hints } : {}) })
}

/** The declared limits checked from the header alone, before any parsing. */
export function checkDimacsHeader(text: string): void {
  const header = peekDimacsHeader(text)
  if (!header) return // no header up front: the parser will say what is wrong, with a line and column
  if (header.vars > SAT_LIMITS.maxVars) {
    throw limitRefusal('maxVars', SAT_LIMITS.maxVars, `the header declares ${header.vars} variables; the limit is ${SAT_LIMITS.maxVars}`)
  }
  if (header.clauses > SAT_LIMITS.maxClauses) {
    throw limitRefusal('maxClauses', SAT_LIMITS.maxClauses, `the header declares ${header.clauses} clauses; the limit is ${SAT_LIMITS.maxClauses}`)
  }
}

export function checkClauseArrays(clauses: number[][]): void {
  if (clauses.length > SAT_LIMITS.maxClauses) {
    throw limitRefusal('maxClauses', SAT_LIMITS.maxClauses, `${clauses.length} clauses is over the limit of ${SAT_LIMITS.maxClauses}`)
  }
  let literals = 0
  for (const clause of clauses) literals += clause.length
  if (literals > SAT_LIMITS.maxLiterals) {
    throw limitRefusal('maxLiterals', SAT_LIMITS.maxLiterals, `${literals} literals is over the limit of ${SAT_LIMITS.maxLiterals}`)
  }
}

/** The declared limits of a CNF given either as DIMACS text or as clause arrays (/clauses, /quiz). */
export function checkCnfLimits(input: { dimacs?: string | undefined; clauses?: number[][] | undefined }): void {
  if (input.dimacs !== undefined) checkDimacsHeader(input.dimacs)
  if (input.clauses !== undefined) checkClauseArrays(input.clauses)
}

/** Validates JSON clause arrays (non-zero literals, within `vars` when given) into a CNF. */
export function cnfFromJson(clauses: number[][], vars: number | undefined, path = 'clauses'): Cnf {
  const issues: Array<{ path: string; message: string }> = []
  let maxVar = 0
  for (let c = 0; c < clauses.length && issues.length < 20; c++) {
    const clause = clauses[c]!
    for (let k = 0; k < clause.length && issues.length < 20; k++) {
      const lit = clause[k]!
      const v = Math.abs(lit)
      if (lit === 0) issues.push({ path: `${path}[${c}][${k}]`, message: 'literals are non-zero (a JSON clause needs no closing 0)' })
      else if (v > SAT_LIMITS.maxVars) issues.push({ path: `${path}[${c}][${k}]`, message: `variable ${v} is above the limit of ${SAT_LIMITS.maxVars} variables` })
      else if (vars !== undefined && v > vars) issues.push({ path: `${path}[${c}][${k}]`, message: `variable ${v} is above vars = ${vars}` })
      if (v > maxVar) maxVar = v
    }
  }
  if (issues.length > 0) throw new Refusal('invalid_input', `the clauses are malformed (${issues[0]!.path}: ${issues[0]!.message})`, { issues })
  if (vars !== undefined && vars > SAT_LIMITS.maxVars) {
    throw limitRefusal('maxVars', SAT_LIMITS.maxVars, `vars = ${vars} is over the limit of ${SAT_LIMITS.maxVars} variables`)
  }
  return cnfFromClauses(clauses, vars ?? maxVar)
}

/** Parses a JSON formula into its flat form; syntax problems become invalid_input, size problems over_limit. */
export function flatFormula(value: unknown, path = 'formula'): FlatFormula {
  return valueOf(guarded(() => ({ value: parseFormula(value, FORMULA_LIMITS, path), warnings: [] }))).value
}

/** Where a CNF comes from, and whether it is small enough to handle on the event loop. */
export function cnfSource(input: { dimacs?: string | undefined; clauses?: number[][] | undefined; vars?: number | undefined }): {
  source: CnfSource
  small: boolean
} {
  if (input.dimacs !== undefined) {
    const declared = peekDimacsHeader(input.dimacs)?.vars ?? 0
    return { source: { dimacs: input.dimacs, limits: SAT_LIMITS }, small: input.dimacs.length <= INLINE_MAX_DIMACS_CHARS && declared <= INLINE_MAX_VARS }
  }
  const cnf = cnfFromJson(input.clauses ?? [], input.vars)
  return { source: { cnf }, small: cnf.lits.length <= INLINE_MAX_LITERALS && cnf.vars <= INLINE_MAX_VARS }
}

/**
 * Runs pure work inline when it is small, else in the mill (admitted as heavy work, with the default budget):
 * `inMill` names the task, so its input and answer are typed by the mill's task table.
 */
export async function inlineOrMill<T>(
  ctx: OperationContext,
  op: string,
  small: boolean,
  work: () => TaskResult<T>,
  inMill: (options: RunOptions) => Promise<TaskResult<T>>,
): Promise<{ value: T; warnings: string[] }> {
  return small ? valueOf(work()) : inTheMill(ctx, op, inMill)
}

/** Runs a task in the mill as a request's heavy work (admitted, with the default budget). */
export async function inTheMill<T>(
  ctx: OperationContext,
  op: string,
  run: (options: RunOptions) => Promise<TaskResult<T>>,
): Promise<{ value: T; warnings: string[] }> {
  ctx.admission.admitHeavy(op, ctx.principal)
  return valueOf(await run({ timeoutMs: budgetOf(undefined), op, owner: ctx.principal.owner }))
}

/** Exactly one of the listed fields must be present (a zod superRefine for the CNF-or-formula bodies). */
export function exactlyOneOf<T extends Record<string, unknown>>(fields: Array<keyof T & string>) {
  return (value: T, ctx: z.RefinementCtx): void => {
    const present = fields.filter((f) => value[f] !== undefined)
    if (present.length === 1) return
    ctx.addIssue({
      code: 'custom',
      path: present.length === 0 ? [] : [present[1]!],
      message: present.length === 0 ? `give one of ${fields.join(', ')}` : `give only one of ${fields.join(', ')}; got ${present.join(' and ')}`,
    })
  }
}
