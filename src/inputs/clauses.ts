// POST /clauses' input: read by its route on the loop and, for a large body, by the mill (mill/tasks/logic.ts).
import { z } from 'zod'
import { dimacsText, exactlyOneOf, jsonClauses, LOOP_NUMBER_CHARS, type CnfSize } from './cnf.js'

export const clausesInput = z
  .object({
    dimacs: dimacsText.optional(),
    clauses: jsonClauses.optional(),
    vars: z.number().int().min(0).optional().describe('With clauses: the variable count (default: the largest variable used)'),
    max_listed: z.number().int().min(0).max(10_000).default(100).describe('Longest list returned for units, pure literals, unused and fixed variables'),
  })
  .strict()
  .superRefine(exactlyOneOf(['dimacs', 'clauses']))

export type ClausesInput = z.output<typeof clausesInput>

/**
 * The most JSON /clauses answers for a CNF of this size worked on the loop: its model and four lists of numbers, the
 * simplified DIMACS, the clause-length histogram (at most √(2 × literals) lengths) and its counts.
 */
export const clausesAnswerBytes = ({ vars, literals, clauses }: CnfSize, maxListed: number): number =>
  LOOP_NUMBER_CHARS * (vars + 4 * Math.min(maxListed, vars) + literals) + 2 * clauses + 40 * Math.ceil(Math.sqrt(2 * literals)) + 4096
