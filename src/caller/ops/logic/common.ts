// What the logic operations share: declared limits, schema atoms, CNF input handling and refusal translation.
// The CNF's own (its schema atoms, limits and reading) live below the surfaces, in src/inputs/cnf.ts, where the mill reads them too.
import { z } from 'zod'
export {
  checkCnfLimits, checkClauseArrays, checkDimacsHeader, cnfFromJson, cnfSource, dimacsText, exactlyOneOf, INLINE_MAX_DIMACS_CHARS,
  INLINE_MAX_LITERALS, INLINE_MAX_VARS, jsonClauses, limitRefusal, SAT_LIMITS,
} from '../../../inputs/cnf.js'
export { FORMULA_LIMITS, formulaInput, INLINE_MAX_NODES } from '../../../inputs/formula.js'
import type { OperationContext } from '../../operation.js'
import type { RunOptions } from '../../../mill/pool.js'
import { heavyWork, lightWork } from '../../mill-work.js'
export { PROOF_LIMITS, searchFields, searchOptions, timeoutMs } from '../../../inputs/search.js'
import type { FlatFormula } from '../../../engines/sat/formula.js'
import { formulaOf } from '../../../mill/tasks/logic.js'
import { refusalOf, type TaskResult } from '../../../mill/tasks/task-result.js'


export const statsSchema = z.object({
  decisions: z.number().int(),
  conflicts: z.number().int(),
  propagations: z.number().int(),
  restarts: z.number().int(),
  learned: z.number().int(),
  time_ms: z.number().describe('Measured: wall time in the worker (parse, encode, solve, check)'),
  check_ms: z.number().nullable().describe('Measured: wall time of the proof check alone; null when none ran'),
})

export const proofSchema = z
  .object({
    format: z.enum(['drat', 'lrat']),
    steps: z.number().int().describe('Lines of the proof: added lemmas and deletions'),
    bytes: z.number().int(),
    sha256: z.string().describe('SHA-256 of the proof text, hex'),
    url: z.string().describe('GET it (a path on this host) for the proof as text/plain, in the standard textual format'),
  })
  .nullable()
  .describe('UNSAT with a proof asked for: the stored proof. Clause i of the formula is clause id i; under assumptions the formula ' +
    'is followed by the core\'s literals as unit clauses, in the order of core. Null otherwise')

export const satFields = {
  status: z.enum(['SAT', 'UNSAT', 'UNKNOWN']),
  model: z
    .array(z.number().int())
    .nullable()
    .describe('SAT and want_model: every variable 1..vars once, as a signed literal (negative = false); otherwise null'),
  vars: z.number().int(),
  clauses: z.number().int(),
  verified: z.boolean().describe('SAT: every model was checked against every input clause. UNSAT: the proof was accepted by the checker ' +
    'named in checker. False otherwise (verification says why)'),
  verification: z.object({ reason: z.string() }).nullable().describe('Why verified is false; null when it is true'),
  checker: z
    .object({
      name: z.string(),
      version: z.string(),
      format: z.enum(['drat', 'lrat']),
      method: z.string(),
      steps_checked: z.number().int(),
    })
    .nullable()
    .describe('The independent proof checker that ran on an UNSAT answer, verified or not; null when none ran'),
  proof: proofSchema,
  stopped_by: z.enum(['deadline', 'conflicts', 'decisions', 'propagations']).nullable()
    .describe('Status UNKNOWN: the budget that ran out (timeout_ms is "deadline"); null otherwise'),
  stats: statsSchema,
  warnings: z.array(z.string()),
}


/** The value of a task result, or the refusal it carries. */
export function valueOf<T>(result: TaskResult<T>): { value: T; warnings: string[] } {
  if (result.ok) return result
  throw refusalOf(result.refusal)
}





/** Parses a JSON formula into its flat form; syntax problems become invalid_input, size problems over_limit. */
export function flatFormula(value: unknown, path = 'formula'): FlatFormula {
  return valueOf(formulaOf(value, path)).value
}


/** Runs a task in the mill as light work (mill-work.ts lightWork). */
export async function lightInTheMill<T>(ctx: OperationContext, op: string, run: (options: RunOptions) => Promise<TaskResult<T>>): Promise<{ value: T; warnings: string[] }> {
  return valueOf(await run(lightWork(ctx, op)))
}

/** Runs a task in the mill as a request's heavy work (mill-work.ts heavyWork: admitted, with the default budget). */
export async function inTheMill<T>(
  ctx: OperationContext,
  op: string,
  run: (options: RunOptions) => Promise<TaskResult<T>>,
): Promise<{ value: T; warnings: string[] }> {
  return valueOf(await run(heavyWork(ctx, op)))
}

