// A CNF as /clauses, /quiz and /sat take it (DIMACS text or JSON clause arrays): its schema atoms, declared limits and
// the reading of clause arrays. Below the surfaces, so the mill reads an operation's input from its body's bytes with
// the same rules as the route (issue #30: large bodies run in the mill).
import { z } from 'zod'
import { Refusal } from '../http/refusal.js'
import { cnfFromClauses, type Cnf } from '../engines/sat/cnf.js'
import { peekDimacsHeader, type DimacsLimits } from '../engines/sat/dimacs.js'

/** A CNF to read: DIMACS text (parsed where the work runs) or clause arrays already in flat form. */
export type CnfSource = { dimacs: string; limits: DimacsLimits } | { cnf: Cnf }

// Variables are bounded harder than clauses: a model lists every variable, so a 40-byte header declaring 2,000,000
// made a 17 MB answer whose serialising held the loop 0.3–0.6 s; 100,000 keeps an answer near 1 MB.
export const SAT_LIMITS: DimacsLimits = { maxVars: 100_000, maxClauses: 5_000_000, maxLiterals: 10_000_000 }

/**
 * /clauses and /quiz answer small inputs on the event loop and send larger ones to the mill. Small means a few
 * milliseconds of work, which grows with the text, the literals and the declared variables alike.
 */
export const INLINE_MAX_DIMACS_CHARS = 64 * 1024
export const INLINE_MAX_LITERALS = 16_384
export const INLINE_MAX_VARS = 16_384

export const dimacsText = z
  .string()
  .max(64 * 1024 * 1024)
  .describe("DIMACS CNF text: 'c' comments, one 'p cnf <vars> <clauses>' header, clauses ended by 0 (SATLIB '%' trailers accepted)")

export const jsonClauses = z
  .array(z.array(z.number().int()))
  .describe('Clauses as arrays of non-zero signed integers (DIMACS literals without the closing 0)')

export function limitRefusal(limit: string, value: number, reason: string): Refusal {
  return new Refusal('over_limit', reason, { hints: { limit, value } })
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

/** What a CNF's answers grow with: its declared variables, literals and clauses (for DIMACS not yet parsed, at most half its characters each). */
export interface CnfSize {
  vars: number
  literals: number
  clauses: number
}

export function cnfSizeOf(source: CnfSource): CnfSize {
  if ('cnf' in source) return { vars: source.cnf.vars, literals: source.cnf.lits.length, clauses: source.cnf.starts.length - 1 }
  const most = Math.ceil(source.dimacs.length / 2)
  return { vars: peekDimacsHeader(source.dimacs)?.vars ?? 0, literals: most, clauses: most }
}

/** The most characters a variable or literal of a CNF worked on the loop takes in an answer, with its separator ("-16384,"). */
export const LOOP_NUMBER_CHARS = String(-INLINE_MAX_VARS).length + 1

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
