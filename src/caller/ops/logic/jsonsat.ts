// POST /jsonsat: a JSON boolean formula, Tseitin-encoded and solved in the mill; the answer names the user's variables.
import { z } from 'zod'
import { defineOperation, type OperationContext } from '../../operation.js'
import { budgetOf } from '../../../mill/pool.js'
import { movedCopies } from '../../../mill/moving.js'
import { jsonsatPayloadOf, type JsonSatMembers, type WrittenJsonSatAnswer } from '../../../mill/tasks/logic.js'
import type { TaskResult } from '../../../mill/tasks/task-result.js'
import type { FlatFormula } from '../../../engines/sat/formula.js'
import { jsonsatInput as input, jsonsatInputAction } from '../../../inputs/jsonsat.js'
import { flatFormula, FORMULA_LIMITS, satFields, valueOf } from './common.js'
import { storedProof, storeText } from './stored-text.js'
import { formulaSource } from './formula-source.js'
import { isSmallFormulaValue } from '../../../inputs/formula.js'
import { answerSchema, splicedAnswer } from '../../../json/serializer.js'

const output = z.object({
  ...satFields,
  model: satFields.model.describe('SAT and want_model: the named variables 1..vars in order of first appearance, signed; else null'),
  vars: z.number().int().describe('Distinct variable names in the formula'),
  clauses: z.number().int().describe('Clauses of the CNF after Tseitin encoding'),
  assignment: z.record(z.string(), z.boolean()).nullable().describe('SAT and want_model: a value for every named variable'),
  cnf: z.object({
    vars: z.number().int().describe('Named plus auxiliary variables'),
    clauses: z.number().int(),
    literals: z.number().int(),
    aux_vars: z.number().int(),
    sha256: z.string().nullable().describe('With want_cnf or a proof: SHA-256 of the CNF as DIMACS text, hex; else null'),
    url: z.string().nullable().describe('With want_cnf or a proof: GET it (a path on this host) for the CNF as DIMACS text; else null'),
  }),
})

// A small formula is parsed (iteratively: any depth) while limits are checked, and the handler reuses that parse.
const parsed = new WeakMap<object, FlatFormula>()

/** The schemas /jsonsat's task writes the model and assignment by. */
const members = (): JsonSatMembers => ({ model: answerSchema(output.shape.model), assignment: answerSchema(output.shape.assignment) })

/** The answer from the task's: its proof and CNF stored, and the model and assignment it wrote spliced in as they are. */
async function jsonsatAnswer(ctx: OperationContext, result: TaskResult<WrittenJsonSatAnswer>) {
  const { cnf_dimacs: cnfText, core: _core, models: _models, enumeration: _enumeration, model, assignment, ...rest } = valueOf(result).value
  const stored = cnfText ? await storeText(ctx, cnfText, 'Tseitin CNF of a formula solved by /jsonsat') : null
  const answer = {
    ...rest,
    proof: await storedProof(ctx, rest.proof, 'jsonsat'),
    cnf: { ...rest.cnf, sha256: stored?.sha256 ?? null, url: stored?.url ?? null },
    model: null,
    assignment: null,
  }
  return splicedAnswer(output, answer, { model, assignment })
}

export const jsonsat = defineOperation({
  name: 'jsonsat',
  method: 'POST',
  path: '/jsonsat',
  lobe: 'logic',
  caption: 'Solve a JSON boolean formula (and, or, xor, implies, iff, cardinality)',
  summary:
    'Takes a formula built from var, not, and, or, implies, iff, xor, atMost/atLeast/exactly {k, of} and true/false, at any ' +
    'nesting depth; encodes it to CNF (Tseitin with polarity, sequential counters for cardinality) and solves it in the ' +
    'worker pool. A SAT answer gives an assignment of every named variable, checked against the CNF and by evaluating the ' +
    `formula itself. Limits: ${FORMULA_LIMITS.maxNodes} nodes, ${FORMULA_LIMITS.maxVars} variable names, ` +
    `${FORMULA_LIMITS.maxCounterCells} counter cells for cardinality (n × min(k, n − k) summed).`,
  input,
  output,
  provenance: ['computed', 'measured'],
  heavy: true,
  bodyLimit: 'large',
  inputAction: jsonsatInputAction,
  checkLimits: (i) => {
    // A large formula of a value (a /run item, an MCP call) is not parsed on the event loop: its limits (and syntax)
    // are checked by the job's run in the mill, which fails with the same refusal. A large body's formula is parsed
    // whole in the mill before its job is stored (inputs/stored.ts).
    if (isSmallFormulaValue(i.formula)) parsed.set(i, flatFormula(i.formula))
  },
  downloads: {
    proof_out: { caption: 'write the proof of an UNSAT answer (proof.url) to this file', url: (data) => data.proof?.url ?? null },
    cnf_out: { caption: 'write the CNF that was solved (cnf.url; with want_cnf or a proof) to this file', url: (data) => data.cnf.url },
  },
  examples: [
    {
      formula: {
        and: [
          { or: [{ var: 'alice' }, { var: 'bob' }] },
          { implies: [{ var: 'alice' }, { not: { var: 'carol' } }] },
          { exactly: { k: 1, of: [{ var: 'bob' }, { var: 'carol' }] } },
        ],
      },
    },
    { formula: { and: [{ var: 'p' }, { not: { var: 'p' } }] }, want_model: false },
    { formula: { and: [{ xor: [{ var: 'a' }, { var: 'b' }] }, { iff: [{ var: 'a' }, { var: 'b' }] }] }, proof: 'drat' },
  ],
  handler: async (i, ctx) => {
    const formula = parsed.get(i) ?? (await formulaSource(i.formula))
    const options = { timeoutMs: budgetOf(i.timeout_ms), op: 'jsonsat', owner: ctx.principal.owner }
    return jsonsatAnswer(ctx, await ctx.mill.run('logic.jsonsat', { ...jsonsatPayloadOf(i, formula), members: members() }, options))
  },
  // A large input's run: its task reads the input and keeps to its timeout_ms (logic.ts storedInput).
  fromStored: async (stored, ctx) => {
    const { views, transfer } = await movedCopies(stored.chunks)
    const options = { timeoutMs: budgetOf(Number.POSITIVE_INFINITY), op: 'jsonsat', owner: ctx.principal.owner, transfer }
    return jsonsatAnswer(ctx, await ctx.mill.run('logic.jsonsatStored', { stored: views, members: members() }, options))
  },
})
