// POST /jsonsat: a JSON boolean formula, Tseitin-encoded and solved in the mill; the answer names the user's variables.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { budgetOf } from '../../../mill/pool.js'
import type { JsonSatTaskPayload } from '../../../mill/tasks/logic.js'
import type { FlatFormula } from '../../../engines/sat/formula.js'
import { flatFormula, FORMULA_LIMITS, formulaInput, PROOF_LIMITS, satFields, searchFields, searchOptions, timeoutMs, valueOf } from './common.js'
import { storedProof, storeText } from './stored-text.js'
import { formulaSource, isSmallFormula } from './formula-source.js'
import { answerSchema, splicedAnswer } from '../../../json/serializer.js'

const input = z
  .object({
    formula: formulaInput,
    timeout_ms: timeoutMs,
    want_model: z.boolean().default(true).describe('Return the model and assignment of a SAT answer (default true)'),
    ...searchFields,
    want_cnf: z.boolean().default(false).describe('Store the Tseitin CNF that was solved as a pin and name it in cnf.url (needs scope pin:write; ' +
      `a proof names its CNF always: the proof is of that CNF). CNFs over ${PROOF_LIMITS.maxBytes} bytes of DIMACS are not stored (a warning says so)`),
  })
  .strict()

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
  textMembers: ['formula'],
  // A proof or the CNF is pinned: the call is a pin write too.
  inputAction: (raw) => {
    if (typeof raw !== 'object' || raw === null) return null
    return ('proof' in raw && raw.proof !== 'none') || ('want_cnf' in raw && raw.want_cnf === true) ? 'pin.write' : null
  },
  checkLimits: (i) => {
    // A large formula is not parsed on the event loop: its limits (and syntax) are checked by the job's run in the
    // mill, which fails with the same refusal; a sync call answers it as before, only after the job was made (§2.6).
    if (isSmallFormula(i.formula)) parsed.set(i, flatFormula(i.formula))
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
    const payload: JsonSatTaskPayload = { formula, wantModel: i.want_model, search: searchOptions(i), wantCnf: i.want_cnf, maxCnfBytes: PROOF_LIMITS.maxBytes }
    const members = { model: answerSchema(output.shape.model), assignment: answerSchema(output.shape.assignment) }
    const { value } = valueOf(await ctx.mill.run('logic.jsonsat', { ...payload, members }, { timeoutMs: budgetOf(i.timeout_ms), op: 'jsonsat', owner: ctx.principal.owner }))
    const { cnf_dimacs: cnfText, core: _core, models: _models, enumeration: _enumeration, model, assignment, ...rest } = value
    const stored = cnfText ? await storeText(ctx, cnfText, 'Tseitin CNF of a formula solved by /jsonsat') : null
    // The model and assignment come written by the answer's schema for them: spliced in as they are.
    const answer = {
      ...rest,
      proof: await storedProof(ctx, rest.proof, 'jsonsat'),
      cnf: { ...rest.cnf, sha256: stored?.sha256 ?? null, url: stored?.url ?? null },
      model: null,
      assignment: null,
    }
    return splicedAnswer(output, answer, { model, assignment })
  },
})
