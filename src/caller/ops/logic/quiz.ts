// POST /quiz: checks a proposed assignment against a CNF or a JSON formula.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { quizFormulaWork, quizWork, type FormulaSource, type QuizTaskPayload } from '../../../mill/tasks/logic.js'
import { checkCnfLimits, cnfSource, flatFormula, inTheMill, lightInTheMill, valueOf } from './common.js'
import { assignmentByName, quizAnswerBytes, quizFormulaAnswerBytes, quizInput } from '../../../inputs/quiz.js'
import { cnfSizeOf } from '../../../inputs/cnf.js'
import { LOOP_VALUE_MAX_BYTES } from '../../../json/loop-rule.js'
import { jsonWeight } from '../../../engines/diff/json-patch.js'
import { JsonBytes } from '../../../json/bytes.js'
import { answerSchema } from '../../../json/serializer.js'
import { formulaText } from './formula-source.js'
import { isSmallFormulaValue } from '../../../inputs/formula.js'

const input = quizInput

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
  largeAnswer: true,
  checkLimits: checkCnfLimits,
  examples: [
    { clauses: [[1, 2], [-1, 3], [-2, -3]], assignment: [1, -2, 3] },
    { formula: { and: [{ var: 'x' }, { or: [{ var: 'y' }, { var: 'z' }] }] }, assignment: { x: true, y: false } },
  ],
  // A body over 64 KiB is read, checked and answered in the mill from its bytes.
  fromBody: async (body, ctx, read) => {
    const payload = { ...body.payload, answer: answerSchema(output) }
    return new JsonBytes([await read(ctx.mill.run('logic.quizBody', payload, body.options))])
  },
  handler: async (i, ctx) => {
    const answer = answerSchema(output)
    if (i.formula !== undefined) {
      const assignment = assignmentByName(i.assignment)
      const payload = (formula: FormulaSource) => ({ formula, assignment, maxListed: i.max_listed })
      if (isSmallFormulaValue(i.formula)) {
        const formula = flatFormula(i.formula)
        if (quizFormulaAnswerBytes(jsonWeight(i.formula, LOOP_VALUE_MAX_BYTES + 1), i.max_listed) <= LOOP_VALUE_MAX_BYTES) {
          const { value, warnings } = valueOf(quizFormulaWork(payload(formula)))
          return { ...value, checked: 'formula' as const, warnings }
        }
        // A small formula whose answer may still pass what the loop writes: light work, answered from the mill.
        const { value } = await lightInTheMill(ctx, 'quiz', (options) => ctx.mill.run('logic.quizFormula', { ...payload(formula), answer }, options))
        return new JsonBytes([value])
      }
      // A large formula is admitted as heavy work before its text is written for the mill; its answer is written there.
      const { value } = await inTheMill(ctx, 'quiz', async (options) => ctx.mill.run('logic.quizFormula', { ...payload(await formulaText(i.formula)), answer }, options))
      return new JsonBytes([value])
    }
    const { source, small } = cnfSource(i)
    const payload: QuizTaskPayload = { source, assignment: i.assignment, maxListed: i.max_listed }
    if (small && quizAnswerBytes(cnfSizeOf(source), i.max_listed) <= LOOP_VALUE_MAX_BYTES) {
      const { value, warnings } = valueOf(quizWork(payload))
      return { ...value, checked: 'cnf' as const, warnings }
    }
    const inMill = small ? lightInTheMill : inTheMill
    const { value } = await inMill(ctx, 'quiz', (options) => ctx.mill.run('logic.quiz', { ...payload, answer }, options))
    return new JsonBytes([value])
  },
})
