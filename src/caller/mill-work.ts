// How an operation's request runs its own work in the mill: with the default budget, counted in its client's share.
import { budgetOf, type RunOptions } from '../mill/pool.js'
import type { OperationContext } from './operation.js'

/** Heavy work: admitted first (run:heavy, the admission's load rules), then waits for one of the heavy workers. */
export function heavyWork(ctx: OperationContext, op: string): RunOptions {
  ctx.admission.admitHeavy(op, ctx.principal)
  return { timeoutMs: budgetOf(undefined), op, owner: ctx.principal.owner }
}

/**
 * Light work: work the loop's input limits bound, whose answer may still pass what a request writes on the loop
 * (LOOP_VALUE_MAX_BYTES). Short work: beside heavy work, in the client's share, without run:heavy.
 */
export const lightWork = (ctx: OperationContext, op: string): RunOptions =>
  ({ timeoutMs: budgetOf(undefined), op, owner: ctx.principal.owner, short: true })
