// POST /clauses: analysis and simplification of a CNF (DIMACS or JSON clause arrays).
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { clausesWork, type ClausesTaskPayload } from '../../../mill/tasks/logic.js'
import { DEFAULT_SIMPLIFY_OPTIONS } from '../../../engines/sat/simplify.js'
import { checkCnfLimits, cnfSource, inTheMill, lightInTheMill, SAT_LIMITS, valueOf } from './common.js'
import { clausesAnswerBytes, clausesInput } from '../../../inputs/clauses.js'
import { cnfSizeOf } from '../../../inputs/cnf.js'
import { LOOP_VALUE_MAX_BYTES } from '../../../json/loop-rule.js'
import { JsonBytes } from '../../../json/bytes.js'
import { answerSchema } from '../../../json/serializer.js'

const input = clausesInput

const list = z.object({ count: z.number().int(), items: z.array(z.number().int()).describe('The first max_listed entries') })

const output = z.object({
  vars: z.number().int(),
  clauses: z.number().int(),
  literals: z.number().int(),
  variables_used: z.number().int(),
  variables_unused: list,
  clause_lengths: z.array(z.object({ length: z.number().int(), count: z.number().int() })),
  unit_literals: list.describe('Unit clauses of the input as given'),
  pure_literals: list.describe('Literals whose negation never occurs in the input as given'),
  removed: z.object({
    tautologies: z.number().int(),
    duplicate_literals: z.number().int(),
    duplicate_clauses: z.number().int(),
    satisfied: z.number().int().describe('Clauses satisfied by fixed literals'),
    subsumed: z.number().int(),
  }),
  propagation: z.object({
    fixed_by_units: z.number().int(),
    fixed_by_purity: z.number().int(),
    false_literals_removed: z.number().int(),
    rounds: z.number().int(),
  }),
  fixed: list.describe('Literals fixed by unit propagation and pure-literal elimination, in order'),
  subsumption_complete: z.boolean().describe('False when the subsumption check stopped at its work budget'),
  status: z.enum(['SAT', 'UNSAT', 'UNDECIDED']).describe('Whether simplification alone decided the formula'),
  model: z.array(z.number().int()).nullable().describe('For SAT: a model found by simplification, checked against every input clause'),
  simplified: z.object({ vars: z.number().int(), clauses: z.number().int(), literals: z.number().int(), dimacs: z.string() }),
  warnings: z.array(z.string()),
})

export const clauses = defineOperation({
  name: 'clauses',
  method: 'POST',
  path: '/clauses',
  lobe: 'logic',
  caption: 'Analyse and simplify a CNF: units, pure literals, duplicates, subsumption',
  summary:
    'Counts clauses, literals and variables (used and unused), the clause-length histogram, unit and pure literals; removes ' +
    'tautologies, duplicate literals and clauses, runs unit propagation and pure-literal elimination to a fixpoint with ' +
    'subsumption, and returns the simplified CNF as DIMACS with whether simplification alone decided it (SAT with a checked ' +
    `model, UNSAT, or UNDECIDED). Input: dimacs text or clauses as arrays. Limits: ${SAT_LIMITS.maxVars} variables, ` +
    `${SAT_LIMITS.maxClauses} clauses, ${SAT_LIMITS.maxLiterals} literals; large inputs run in the worker pool. The DIMACS may also come as a text/plain ` +
    'body, with the other fields in the query string.',
  input,
  output,
  provenance: ['computed'],
  bodyLimit: 'large',
  textBody: 'dimacs',
  largeAnswer: true,
  checkLimits: checkCnfLimits,
  examples: [
    { clauses: [[1, 2], [-1, 2], [2, 3, -3], [1, 2], [3, 4], [3, 4, 5]] },
    { dimacs: 'p cnf 3 3\n1 0\n-1 2 0\n-2 3 0\n' },
  ],
  // A body over 64 KiB is read, checked and answered in the mill from its bytes.
  fromBody: async (body, ctx, read) => {
    const payload = { ...body.payload, answer: answerSchema(output) }
    return new JsonBytes([await read(ctx.mill.run('logic.clausesBody', payload, body.options))])
  },
  handler: async (i, ctx) => {
    const { source, small } = cnfSource(i)
    const payload: ClausesTaskPayload = { source, options: { ...DEFAULT_SIMPLIFY_OPTIONS, listLimit: i.max_listed } }
    if (small && clausesAnswerBytes(cnfSizeOf(source), i.max_listed) <= LOOP_VALUE_MAX_BYTES) {
      const { value, warnings } = valueOf(clausesWork(payload))
      return { ...value, warnings }
    }
    // The answer grows with the variables, not the text (a 30-byte header declares a 16,384-variable model): written in
    // the worker, sent as its bytes; light work when the CNF is small, heavy when it is not.
    const inMill = small ? lightInTheMill : inTheMill
    const { value } = await inMill(ctx, 'clauses', (options) => ctx.mill.run('logic.clauses', { ...payload, answer: answerSchema(output) }, options))
    return new JsonBytes([value])
  },
})
