// POST /quiz's input: read by its route on the loop and, for a large body, by the mill (mill/tasks/logic.ts).
import { z } from 'zod'
import { Refusal } from '../http/refusal.js'
import { dimacsText, exactlyOneOf, jsonClauses, LOOP_NUMBER_CHARS, type CnfSize } from './cnf.js'
import { formulaInput } from './formula.js'

export const quizInput = z
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

export type QuizInput = z.output<typeof quizInput>

/** A formula's assignment, by name: a literal list is refused. */
export function assignmentByName(assignment: QuizInput['assignment']): Record<string, boolean> {
  if (!Array.isArray(assignment)) return assignment
  throw new Refusal('invalid_input', 'a formula takes an assignment by name ({"x": true}), not a literal list', {
    issues: [{ path: 'assignment', message: 'expected an object of names to booleans' }],
  })
}

/** The most JSON /quiz answers for a CNF of this size checked on the loop: the falsified clauses listed, the unassigned variables. */
export const quizAnswerBytes = ({ vars, literals, clauses }: CnfSize, maxListed: number): number =>
  LOOP_NUMBER_CHARS * (literals + Math.min(maxListed, vars)) + 48 * Math.min(maxListed, clauses) + 2048

/**
 * The most JSON /quiz answers for a formula of this weight (jsonWeight: its nodes and characters) checked on the loop:
 * the unassigned names, each in the formula too and escaped at most six times over, and the falsified conjuncts listed
 * with their paths.
 */
export const quizFormulaAnswerBytes = (weight: number, maxListed: number): number => 6 * weight + 80 * maxListed + 2048
