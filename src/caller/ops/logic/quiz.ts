// POST /quiz: checks a proposed assignment against a CNF or a JSON formula.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { quizFormulaWork, quizWork, type FormulaSource, type QuizTaskPayload } from '../../../mill/tasks/logic.js'
import {
  checkCnfLimits, cnfSource, dimacsText, exactlyOneOf, flatFormula, formulaInput, inlineOrMill, jsonClauses,
} from './common.js'
import { formulaText, isSmallFormula } from './formula-source.js'

const input = z
  .object({
    dimacs: dimacsText.optional(),
    clauses: jsonClauses.optional(),
    vars: z.number().int().min(0).optional().describe('With clauses: the variable count (default: the largest variable used)'),
    formula: formulaInput.optional(),
    assignment: z
      .union([z.record(z.string(), z.boolean()), z.array(z.number().int())])
      .describe('CNF: {"1": true, "2": false} or signed literals [1, -2]; formula: {"name": true, …}'),
    max_listed: z.number().int().min(0).max(10_000).default(20).describe('Longest list of falsified clauses and unassigned variables'),
  })
  .strict()
  .superRefine(exactlyOneOf(['dimacs', 'clauses', 'formula']))

const output = z.object({
  satisfied: z.boolean().describe('Every clause (the whole formula) is true under the assignment'),
  value: z.boolean().nullable().describe('Three-valued: null when the answer depends on unassigned variables'),
  checked: z.enum(['cnf', 'formula']),
  parts: z.number().int().describe('Clauses of the CNF, or top-level conjuncts of the formula'),
  falsified_count: z.number().int(),
  falsified: z.array(
    z.object({
      index: z.number().int().describe('0-based position of the clause (or conjunct)'),
      clause: z.array(z.number().int()).nullable(),
      path: z.string().nullable().describe('For a formula: where the falsified conjunct is'),
    }),
  ),
  undetermined_count: z.number().int().describe('Clauses (conjuncts) neither true nor false: they wait on unassigned variables'),
  unassigned: z.object({ count: z.number().int(), items: z.array(z.union([z.number().int(), z.string()])) }),
  warnings: z.array(z.string()),
})

export const quiz = defineOperation({
  name: 'quiz',
  method: 'POST',
  path: '/quiz',
  lobe: 'logic',
  caption: 'Check an assignment against a CNF or a JSON formula',
  summary:
    'Evaluates a proposed assignment: satisfied or not, the falsified clauses (first max_listed, with 0-based indexes; for a ' +
    'formula the falsified top-level conjuncts with their paths), clauses still undetermined, and the variables the ' +
    'assignment leaves out. The CNF comes as dimacs or clauses (assignment {"1": true} or [1, -2]); the formula as in /jsonsat ' +
    '(assignment by name). A variable outside the CNF or given both values is refused.',
  input,
  output,
  provenance: ['computed'],
  bodyLimit: 'large',
  textMembers: ['formula'],
  largeAnswer: true,
  checkLimits: checkCnfLimits,
  examples: [
    { clauses: [[1, 2], [-1, 3], [-2, -3]], assignment: [1, -2, 3] },
    { formula: { and: [{ var: 'x' }, { or: [{ var: 'y' }, { var: 'z' }] }] }, assignment: { x: true, y: false } },
  ],
  handler: async (i, ctx) => {
    if (i.formula !== undefined) {
      if (Array.isArray(i.assignment)) {
        throw new Refusal('invalid_input', 'a formula takes an assignment by name ({"x": true}), not a literal list', {
          issues: [{ path: 'assignment', message: 'expected an object of names to booleans' }],
        })
      }
      const assignment = i.assignment
      const payload = (formula: FormulaSource) => ({ formula, assignment, maxListed: i.max_listed })
      // A large formula is admitted as heavy work before its text is written for the mill.
      const { value, warnings } = await inlineOrMill(ctx, 'quiz', isSmallFormula(i.formula), () => quizFormulaWork(payload(flatFormula(i.formula))),
        async (options) => ctx.mill.run('logic.quizFormula', payload(await formulaText(i.formula)), options))
      return { ...value, checked: 'formula' as const, warnings }
    }
    const { source, small } = cnfSource(i)
    const payload: QuizTaskPayload = { source, assignment: i.assignment, maxListed: i.max_listed }
    const { value, warnings } = await inlineOrMill(ctx, 'quiz', small, () => quizWork(payload), (options) => ctx.mill.run('logic.quiz', payload, options))
    return { ...value, checked: 'cnf' as const, warnings }
  },
})
