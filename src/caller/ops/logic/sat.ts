// POST /sat: a DIMACS CNF solved by the CDCL solver in the mill — under assumptions and budgets, enumerating models or
// proving UNSAT — with every SAT model checked and every UNSAT proof checked before it is returned.
import { z } from 'zod'
import { defineOperation, type OperationContext } from '../../operation.js'
import { budgetOf } from '../../../mill/pool.js'
import { movedCopies } from '../../../mill/moving.js'
import { satPayloadOf, type SatMembers, type WrittenSatAnswer } from '../../../mill/tasks/logic.js'
import type { TaskResult } from '../../../mill/tasks/task-result.js'
import { checkSearchLimits, satInput as input, satInputAction } from '../../../inputs/sat.js'
import { PROOF_LIMITS, SAT_LIMITS, satFields, valueOf } from './common.js'
import { storedProof } from './stored-text.js'
import { answerSchema, splicedAnswer } from '../../../json/serializer.js'

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

/** The schemas /sat's task writes the model and models by. */
const members = (): SatMembers => ({ model: answerSchema(output.shape.model), models: answerSchema(output.shape.models) })

/** The answer from the task's: its proof stored, and the model and models it wrote spliced in as they are. */
async function satAnswer(ctx: OperationContext, result: TaskResult<WrittenSatAnswer>) {
  const { model, models, ...answer } = valueOf(result).value
  return splicedAnswer(output, { ...answer, model: null, models: null, proof: await storedProof(ctx, answer.proof, 'sat') }, { model, models })
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
  inputAction: satInputAction,
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
    const options = { timeoutMs: budgetOf(i.timeout_ms), op: 'sat', owner: ctx.principal.owner }
    return satAnswer(ctx, await ctx.mill.run('logic.sat', { ...satPayloadOf(i), members: members() }, options))
  },
  // A large input's run: its task reads the input and keeps to its timeout_ms (logic.ts storedInput).
  fromStored: async (stored, ctx) => {
    const { views, transfer } = await movedCopies(stored.chunks)
    const options = { timeoutMs: budgetOf(Number.POSITIVE_INFINITY), op: 'sat', owner: ctx.principal.owner, transfer }
    return satAnswer(ctx, await ctx.mill.run('logic.satStored', { stored: views, members: members() }, options))
  },
})
