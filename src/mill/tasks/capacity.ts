// Mill tasks of the capacity domain.
import type { MillTask } from '../types.js'
import { exactPack, type PackProblem } from '../../engines/capacity/pack.js'

export interface PackExactPayload extends PackProblem {
  maxNodes: number
}

export const capacityTasks: Record<string, MillTask> = {
  /** Branch and bound for ≤ 24 items; at the soft deadline it answers with the best packing found, optimal: false. */
  'capacity.pack_exact': (payload, { deadline }) => {
    const { maxNodes, ...problem } = payload as PackExactPayload
    return exactPack(problem, { shouldStop: () => Date.now() > deadline, maxNodes })
  },
}
