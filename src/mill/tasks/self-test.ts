// Tasks that exist to test the mill itself: a cooperative spin that honours its deadline and cancel flag, and one that ignores both.
import type { TaskContext, TaskTable } from '../types.js'

export const selfTestTasks = {
  /** Busy-waits for `ms` or until the soft deadline or a cancel, whichever comes first; reports progress in ms. */
  'mill.spin': ({ ms }: { ms: number }, { deadline, progress, cancelled }: TaskContext) => {
    const start = Date.now()
    const until = Math.min(start + ms, deadline)
    progress.phase('searching')
    for (let now = start; now < until && !cancelled(); now = Date.now()) progress.advance(now - start, ms)
    return { spun_ms: Date.now() - start, stopped_by_deadline: start + ms > deadline }
  },
  /** Ignores the soft deadline: only the hard stop (worker termination) ends it. */
  'mill.hang': ({ ms }: { ms: number }) => {
    const start = Date.now()
    while (Date.now() - start < ms) {
      // spin
    }
    return { spun_ms: Date.now() - start }
  },
  'mill.fail': (_input: Record<string, never>): never => {
    throw new Error('mill.fail always throws')
  },
} satisfies TaskTable
