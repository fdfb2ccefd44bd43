// POST /quiz's input: read by its route on the loop and, for a large body, by the mill (mill/tasks/logic.ts).
import { z } from 'zod'
import { Refusal } from '../http/refusal.js'
import { dimacsText, exactlyOneOf, jsonClauses } from './cnf.js'
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
