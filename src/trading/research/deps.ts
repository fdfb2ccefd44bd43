// What every research job is given: the repository, the bars cache, the runs recorder, the clock, and the one way to
// run heavy work (admitted first, then in the mill under the caller's budget).
import type { Clock } from '../../clock.js'
import { budgetOf, type Mill } from '../../mill/pool.js'
import type { In, Out, TaskName } from '../../mill/tasks/index.js'
import type { Admission } from '../../plugins/admission.js'
import { Refusal } from '../../refusal.js'
import type { BarsCache } from '../bars-cache.js'
import type { TradingRepository } from '../repository.js'
import type { RunRecorder } from '../runs.js'

export type HeavyRunner = <K extends TaskName>(
  op: string, task: K, payload: In<K>, timeoutMs: number | undefined,
) => Promise<{ result: Out<K>; elapsedMs: number }>

export interface ResearchDeps {
  repo: TradingRepository
  bars: BarsCache
  runs: RunRecorder
  heavy: HeavyRunner
  clock: Clock
}

/** Heavy work: refused first while the host sheds load, then run in the mill under the caller's budget. */
export function createHeavyRunner(mill: Mill, admission: Admission): HeavyRunner {
  return async (op, task, payload, timeoutMs) => {
    admission.admitHeavy(op)
    const started = performance.now()
    try {
      const result = await mill.run(task, payload, { timeoutMs: budgetOf(timeoutMs), op })
      return { result, elapsedMs: performance.now() - started }
    } catch (err) {
      // The engine refuses impossible requests with RangeError (window longer than the data, empty grid…).
      if (err instanceof Error && err.name === 'RangeError') throw new Refusal('invalid_input', err.message, { op })
      throw err
    }
  }
}
