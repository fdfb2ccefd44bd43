// What every research job is given: the repository, the bars cache, the runs recorder, the clock, and the one way to
// run heavy work (admitted first, then in the mill under the caller's budget).
import type { Clock } from '../../sched/clock.js'
import { budgetOf, type Mill } from '../../mill/pool.js'
import { idleWorkers, runSplit, type IdleWorkers } from '../../mill/split.js'
import type { In, Out, TaskName } from '../../mill/tasks/index.js'
import type { Admission } from '../../plugins/admission.js'
import type { Principal } from '../../access/policy.js'
import { Refusal } from '../../http/refusal.js'
import type { BarsCache } from '../bars-cache.js'
import type { TradingRepository } from '../repository.js'
import type { RunRecorder } from '../runs.js'

/** `transfer`: the payload's buffers that move to the worker (`movable`) instead of being copied. */
export type HeavyRunner = <K extends TaskName>(
  op: string, task: K, payload: In<K>, timeoutMs: number | undefined, transfer?: ArrayBuffer[],
) => Promise<{ result: Out<K>; elapsedMs: number }>

/** Heavy work cut into tasks for the mill's idle workers: `payloadsFor` is told how many are idle, and answers ≥ 1 payload. */
export type SplitRunner = <K extends TaskName>(
  op: string, task: K, payloadsFor: (idle: IdleWorkers) => In<K>[], timeoutMs: number | undefined,
) => Promise<{ results: Out<K>[]; elapsedMs: number }>

export interface ResearchDeps {
  repo: TradingRepository
  bars: BarsCache
  runs: RunRecorder
  heavy: HeavyRunner
  heavySplit: SplitRunner
  clock: Clock
}

/**
 * Heavy work for `principal`: admitted first (the policy's compute.heavy, and refused while the host sheds load), then
 * run in the mill under the caller's budget.
 */
export function createHeavyRunner(mill: Mill, admission: Admission, principal: Principal): HeavyRunner {
  return async (op, task, payload, timeoutMs, transfer) => {
    admission.admitHeavy(op, principal)
    const started = performance.now()
    try {
      const result = await mill.run(task, payload, { timeoutMs: budgetOf(timeoutMs), op, owner: shareOf(principal), ...(transfer ? { transfer } : {}) })
      return { result, elapsedMs: performance.now() - started }
    } catch (err) {
      throw refusalOf(err, op)
    }
  }
}

/**
 * Admitted once, like one heavy operation; its tasks then take only the workers idle at that moment (each with the
 * caller's whole budget), so on a busy mill it is one task, as any other heavy operation.
 */
export function createSplitRunner(mill: Mill, admission: Admission, principal: Principal): SplitRunner {
  return async (op, task, payloadsFor, timeoutMs) => {
    admission.admitHeavy(op, principal)
    const started = performance.now()
    try {
      const results = await runSplit(mill, task, payloadsFor(idleWorkers(mill)), { timeoutMs: budgetOf(timeoutMs), op, owner: shareOf(principal) })
      return { results, elapsedMs: performance.now() - started }
    } catch (err) {
      throw refusalOf(err, op)
    }
  }
}

/** Whose share of the mill's queue a principal's work counts in: none for the host's own (its jobs count as jobs). */
const shareOf = (principal: Principal): string | null => (principal.kind === 'internal' ? null : principal.owner)

/** The engine refuses impossible requests with RangeError (window longer than the data, empty grid…). */
function refusalOf(err: unknown, op: string): unknown {
  return err instanceof Error && err.name === 'RangeError' ? new Refusal('invalid_input', err.message, { op }) : err
}
