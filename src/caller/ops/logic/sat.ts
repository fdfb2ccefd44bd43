// POST /sat: a DIMACS CNF solved by the CDCL solver in the mill — under assumptions and budgets, enumerating models or
// proving UNSAT — with every SAT model checked and every UNSAT proof checked before it is returned.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { budgetOf } from '../../../mill/pool.js'
import type { SatTaskPayload } from '../../../mill/tasks/logic.js'
import { peekDimacsHeader } from '../../../engines/sat/dimacs.js'
import { Refusal } from '../../../http/refusal.js'
import { checkDimacsHeader, dimacsText, limitRefusal, PROOF_LIMITS, SAT_LIMITS, satFields, searchFields, searchOptions, timeoutMs, valueOf } from './common.js'
import { storedProof } from './stored-text.js'
import { answerSchema, splicedAnswer } from '../../../json/serializer.js'

/** Enumeration is bounded in models and in the literals of the models returned (an answer near 8 MB at most). */
export const ENUMERATION_LIMITS = { maxModels: 1000, maxModelLiterals: 1_000_000 }

const input = z
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

const output = z.object({
  ...satFields,
  core: z
    .array(z.number().int())
    .nullable()
    .describe('UNSAT under assumptions: assumptions the formula contradicts already (the failed ones; [] when the formula alone is ' +
      'UNSAT); the proof refutes the formula with these as unit clauses. Null otherwise'),
  models: z.array(z.array(z.number().int())).nullable().describe('With models: every model found (as model), when want_model; else null'),
  enumeration: z
    .object({
      requested: z.number().int(),
      found: z.number().int(),
      exhausted: z.boolean().describe('True when the formula has no model beyond those found'),
    })
    .nullable()
    .describe('With models: how many were asked for and found; null otherwise'),
})

/** Refusals that need the header: assumptions above its variables, and models × variables over the answer's bound. */
function checkSearchLimits(i: z.output<typeof input>): void {
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

export const sat = defineOperation({
  name: 'sat',
  method: 'POST',
  path: '/sat',
  lobe: 'logic',
  caption: 'Solve a DIMACS CNF with a CDCL SAT solver; SAT models and UNSAT proofs are verified',
  summary:
    'Parses DIMACS (comments, clauses across lines, SATLIB % trailers) and solves it in the worker pool with a conflict-driven ' +
    'clause-learning solver: two watched literals, first-UIP learning with minimisation, VSIDS, phase saving, restarts and ' +
    'learned-clause reduction. A SAT model is checked against every input clause before it is returned (verified). With ' +
    'proof "drat" or "lrat" an UNSAT answer carries a proof, checked by an independent checker in the same time budget and ' +
    'stored as a pin (verified only when the check passed). assumptions solve under literals without changing the formula ' +
    '(UNSAT answers a core); models enumerates distinct models; max_conflicts, max_decisions and max_propagations stop the ' +
    'search like timeout_ms: UNKNOWN with stopped_by and the counts reached. Malformed DIMACS is refused with its line and ' +
    `column; a literal above the header's variable count is malformed. Limits: ${SAT_LIMITS.maxVars} variables, ` +
    `${SAT_LIMITS.maxClauses} clauses, ${SAT_LIMITS.maxLiterals} literals, proofs of ${PROOF_LIMITS.maxBytes} bytes. The DIMACS may ` +
    'also come as a text/plain body (curl --data-binary @f.cnf -H "content-type: text/plain"), with the scalar fields ' +
    '(timeout_ms, want_model, proof, …) in the query string.',
  input,
  output,
  provenance: ['computed', 'measured', 'stored'],
  heavy: true,
  bodyLimit: 'large',
  textBody: 'dimacs',
  // A proof is pinned: the call is a pin write too.
  inputAction: (raw) => (typeof raw === 'object' && raw !== null && 'proof' in raw && raw.proof !== 'none' ? 'pin.write' : null),
  checkLimits: checkSearchLimits,
  downloads: { proof_out: { caption: 'write the proof of an UNSAT answer (proof.url) to this file', url: (data) => data.proof?.url ?? null } },
  examples: [
    { dimacs: 'c (x1 or x2) and (not x1 or x2) and (x1 or not x2)\np cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n' },
    { dimacs: 'p cnf 1 2\n1 0\n-1 0\n', want_model: false, timeout_ms: 2000 },
    { dimacs: 'p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n', proof: 'lrat' },
    { dimacs: 'p cnf 3 2\n1 2 0\n-2 3 0\n', assumptions: [-1, -3] },
    { dimacs: 'p cnf 3 1\n1 2 3 0\n', models: 10 },
  ],
  handler: async (i, ctx) => {
    const payload: SatTaskPayload = { dimacs: i.dimacs, wantModel: i.want_model, limits: SAT_LIMITS, search: searchOptions(i) }
    const members = { model: answerSchema(output.shape.model), models: answerSchema(output.shape.models) }
    const result = await ctx.mill.run('logic.sat', { ...payload, members }, { timeoutMs: budgetOf(i.timeout_ms), op: 'sat', owner: ctx.principal.owner })
    const { model, models, ...answer } = valueOf(result).value
    // The model and models come written by the answer's schema for them: spliced in as they are.
    return splicedAnswer(output, { ...answer, model: null, models: null, proof: await storedProof(ctx, answer.proof, 'sat') }, { model, models })
  },
})
