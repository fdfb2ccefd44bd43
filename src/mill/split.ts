// One caller's work cut into several tasks that run on the mill's idle workers at once, and answer together: for
// work that is embarrassingly parallel (a grid of backtests), where one task would leave the other workers idle.
import type { Mill, RunOptions } from './pool.js'
import type { ProgressSnapshot } from './progress.js'
import { taskScope } from './scope.js'
import type { In, Out, TaskName } from './tasks/index.js'

/**
 * Workers that no task holds or waits for right now: `warm` ones have started, `cold` ones the pool may still start
 * (a task given to one waits for its start, 0.2–0.5 s: piscina hands it to the starting worker, not to the first free).
 * A split takes no more than these, so one request never queues tasks behind another's or takes a busy mill's turn.
 */
export interface IdleWorkers {
  warm: number
  cold: number
}

export function idleWorkers(mill: Mill): IdleWorkers {
  const { threads, running } = mill.stats()
  const live = Math.min(threads, mill.agents().length)
  const free = Math.max(0, threads - running)
  const warm = Math.min(free, Math.max(0, live - running))
  return { warm, cold: free - warm }
}

/**
 * Runs one task per payload, all enqueued in the same turn of the event loop, and answers their results in payload
 * order once every one has ended (a failure is thrown only then, so no task of the request still holds a worker).
 * Inside a job, the tasks report as one: their progress is summed and the job's cancel reaches each of them.
 */
export async function runSplit<K extends TaskName>(mill: Mill, task: K, payloads: In<K>[], options: RunOptions): Promise<Out<K>[]> {
  const scope = taskScope.getStore()
  const latest: (ProgressSnapshot | null)[] = payloads.map(() => null)
  const runOne = (payload: In<K>, i: number): Promise<Out<K>> => {
    if (!scope || payloads.length === 1) return mill.run(task, payload, options)
    const onProgress = (snapshot: ProgressSnapshot) => {
      latest[i] = snapshot
      scope.onProgress(sumProgress(latest))
    }
    return taskScope.run({ ...scope, onProgress }, () => mill.run(task, payload, options))
  }
  const settled = await Promise.allSettled(payloads.map(runOne))
  const failed = settled.find((s) => s.status === 'rejected')
  if (failed) throw failed.reason
  return settled.map((s) => (s as PromiseFulfilledResult<Out<K>>).value)
}

/** The tasks' progress as one: done, totals and counters summed (the total stays unknown until every task gave one). */
export function sumProgress(snapshots: readonly (ProgressSnapshot | null)[]): ProgressSnapshot {
  const sum: ProgressSnapshot = { writes: 0, phase: 'starting', done: null, total: 0, counters: {} }
  for (const s of snapshots) {
    if (!s) {
      sum.total = null
      continue
    }
    if (sum.writes === 0) sum.phase = s.phase
    sum.writes += s.writes
    if (s.done !== null) sum.done = (sum.done ?? 0) + s.done
    sum.total = s.total === null || sum.total === null ? null : sum.total + s.total
    for (const [name, value] of Object.entries(s.counters) as [keyof ProgressSnapshot['counters'], number][]) {
      sum.counters[name] = (sum.counters[name] ?? 0) + value
    }
  }
  return sum
}
