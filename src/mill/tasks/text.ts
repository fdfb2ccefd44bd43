// Mill tasks of the text domain: diffs too large to compute on the event loop.
import type { MillTask } from '../types.js'
import { runDiff, type DiffRequest } from '../../engines/diff/run.js'

export const textTasks: Record<string, MillTask> = {
  'text.diff': (payload) => runDiff(payload as DiffRequest),
}
