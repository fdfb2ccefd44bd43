// Mill tasks of the capacity domain.
import type { TaskContext, TaskTable } from '../types.js'
import { exactPack, type PackProblem } from '../../engines/capacity/pack.js'
import { tokenBudget, type BudgetInput } from '../../engines/capacity/budget.js'

export interface PackExactPayload extends PackProblem {
  maxNodes: number
}

export const capacityTasks = {
  /** Branch and bound for ≤ 24 items; at the soft deadline it answers with the best packing found, optimal: false. */
  'capacity.pack_exact': (payload: PackExactPayload, { deadline }: TaskContext) => {
    const { maxNodes, ...problem } = payload
    return exactPack(problem, { shouldStop: () => Date.now() > deadline, maxNodes })
  },
  /**
   * Token counting off the event loop: building a BPE encoder parses its whole rank table (a second or more, once per
   * worker and encoding) and encoding runs at about a MiB per second.
   */
  'capacity.token_budget': (payload: BudgetInput, { progress }: TaskContext) => {
    progress.phase('tokenizing')
    return tokenBudget(payload, (done, total) => progress.advance(done, total))
  },
} satisfies TaskTable
