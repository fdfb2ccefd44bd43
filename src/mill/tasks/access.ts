// Mill tasks of the access domain: a pinned JSON value's canonical form, whose cost grows with the value.
import type { TaskTable } from '../types.js'
import { canonicalWithin } from '../../engines/digest/canonical-json.js'

export const accessTasks = {
  /** Takes the value as JSON text (a structured clone of a deep value never arrives); null when nested too deep. */
  'access.canonical_json': (payload: { json: string; maxDepth: number }) => canonicalWithin(JSON.parse(payload.json), payload.maxDepth),
} satisfies TaskTable
