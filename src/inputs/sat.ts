// POST /sat's input: read by its route on the loop and, from a large body's bytes, by the mill (inputs/stored.ts).
import { z } from 'zod'
import { peekDimacsHeader } from '../engines/sat/dimacs.js'
import { Refusal } from '../http/refusal.js'
import { checkDimacsHeader, dimacsText, limitRefusal, SAT_LIMITS } from './cnf.js'
import { searchFields, timeoutMs } from './search.js'

/** Enumeration is bounded in models and in the literals of the models returned (an answer near 8 MB at most). */
export const ENUMERATION_LIMITS = { maxModels: 1000, maxModelLiterals: 1_000_000 }

export const satInput = z
  .object({
    dimacs: dimacsText,
    timeout_ms: timeoutMs,
    want_model: z.boolean().default(true).describe('Return the model of a SAT answer (default true)'),
    ...searchFields,
    assumptions: z
      .array(z.number().int().refine((lit) => lit !== 0, 'a literal is a non-zero variable number, negative for false'))
      .max(SAT_LIMITS.maxVars)
      .optional()
      .describe('Literals solved under, without changing the formula (as the first decisions). UNSAT under them answers core'),
    models: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Enumerate up to this many distinct models (at most ${ENUMERATION_LIMITS.maxModels}) by blocking each one in a copy of the formula; each is checked`),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.proof !== 'none' && v.models !== undefined && v.models > 1) {
      ctx.addIssue({ code: 'custom', path: ['proof'], message: 'a proof refutes the formula alone: it is not written while enumerating (models > 1)' })
    }
  })

export type SatInput = z.output<typeof satInput>

/** A proof is pinned: the call is a pin write too. */
export const satInputAction = (raw: unknown): 'pin.write' | null =>
  typeof raw === 'object' && raw !== null && 'proof' in raw && raw.proof !== 'none' ? 'pin.write' : null

/** Refusals that need the header: assumptions above its variables, and models × variables over the answer's bound. */
export function checkSearchLimits(i: SatInput): void {
  checkDimacsHeader(i.dimacs)
  const { maxModels, maxModelLiterals } = ENUMERATION_LIMITS
  if (i.models !== undefined && i.models > maxModels) {
    throw limitRefusal('maxModels', maxModels, `models = ${i.models} is over the limit of ${maxModels}`)
  }
  const vars = peekDimacsHeader(i.dimacs)?.vars
  if (vars === undefined) return // the parser says what is wrong with the text; assumptions are checked again in the mill
  const above = (i.assumptions ?? []).findIndex((lit) => Math.abs(lit) > vars)
  if (above >= 0) {
    const message = `literal ${i.assumptions![above]} is outside the header's ${vars} variables`
    throw new Refusal('invalid_input', `the assumptions are malformed: ${message}`, { issues: [{ path: `assumptions[${above}]`, message }] })
  }
  if (i.models !== undefined && i.want_model && i.models * vars > maxModelLiterals) {
    throw limitRefusal('maxModelLiterals', maxModelLiterals, `${i.models} models of ${vars} variables would list ${i.models * vars} literals; the limit is ${maxModelLiterals}`)
  }
}
