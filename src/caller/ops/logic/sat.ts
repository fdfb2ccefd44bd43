// POST /sat: a DIMACS CNF solved by the CDCL solver in the mill; every SAT model is checked before it is returned.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { budgetOf } from '../../../mill/pool.js'
import type { SatTaskPayload, TaskResult } from '../../../mill/tasks/logic.js'
import type { SatAnswer } from '../../../engines/sat/answer.js'
import { checkDimacsHeader, dimacsText, SAT_LIMITS, satFields, timeoutMs, valueOf } from './common.js'

const input = z
  .object({
    dimacs: dimacsText,
    timeout_ms: timeoutMs,
    want_model: z.boolean().default(true).describe('Return the model of a SAT answer (default true)'),
  })
  .strict()

const output = z.object(satFields)

export const sat = defineOperation({
  name: 'sat',
  method: 'POST',
  path: '/sat',
  lobe: 'logic',
  caption: 'Solve a DIMACS CNF with a CDCL SAT solver; SAT models are verified',
  summary:
    'Parses DIMACS (comments, clauses across lines, SATLIB % trailers) and solves it in the worker pool with a conflict-driven ' +
    'clause-learning solver: two watched literals, first-UIP learning with minimisation, VSIDS, phase saving, restarts and ' +
    'learned-clause reduction. A SAT model is checked against every input clause before it is returned (verified). When ' +
    'timeout_ms runs out the answer is UNKNOWN with the statistics so far. Malformed DIMACS is refused with its line and ' +
    `column; a literal above the header's variable count is malformed. Limits: ${SAT_LIMITS.maxVars} variables, ` +
    `${SAT_LIMITS.maxClauses} clauses, ${SAT_LIMITS.maxLiterals} literals. The DIMACS may also come as a text/plain body ` +
    '(curl --data-binary @f.cnf -H "content-type: text/plain"), with timeout_ms and want_model in the query string.',
  input,
  output,
  provenance: ['computed', 'measured'],
  heavy: true,
  bodyLimit: 'large',
  textBody: 'dimacs',
  checkLimits: (i) => checkDimacsHeader(i.dimacs),
  examples: [
    { dimacs: 'c (x1 or x2) and (not x1 or x2) and (x1 or not x2)\np cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n' },
    { dimacs: 'p cnf 1 2\n1 0\n-1 0\n', want_model: false, timeout_ms: 2000 },
  ],
  handler: async (i, ctx) => {
    const payload: SatTaskPayload = { dimacs: i.dimacs, wantModel: i.want_model, limits: SAT_LIMITS }
    const result = await ctx.mill.run('logic.sat', payload, { timeoutMs: budgetOf(i.timeout_ms), op: 'sat' })
    return valueOf(result).value
  },
})
