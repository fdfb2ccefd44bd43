// Mill tasks of the text domain: diffs too large to compute on the event loop.
import type { TaskTable } from '../types.js'
import { runDiff, type DiffRequest } from '../../engines/diff/run.js'

export const textTasks = {
  'text.diff': (payload: DiffRequest) => runDiff(payload),
} satisfies TaskTable
