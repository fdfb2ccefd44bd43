// A job's effects (a research run stored beside its answer) and its ending are one decision: the transaction that
// writes the effects also seals the job, and a cancel can win only over a job not sealed. So a cancelled job never
// stores its run, on every backend: whichever of the two commits first, the other changes nothing.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Sql } from '../store/sql.js'

export interface JobEffects {
  jobId: string
  /** Seals the job in `tx`; throws (so `tx` rolls back) when the job is no longer running: a cancel won. */
  seal(tx: Sql): Promise<void>
  /** Records what the run stored or names (such as `run:12`), kept with the job when it ends. */
  note(effect: string): void
}

const running = new AsyncLocalStorage<JobEffects>()

/** Runs a job's executor with its effects scope (the runner's; executors never see it). */
export const withJobEffects = <T>(effects: JobEffects, fn: () => Promise<T>): Promise<T> => running.run(effects, fn)

/**
 * Inside the transaction that writes a job's effects: seals the job the current run belongs to, or throws when a cancel
 * won (the transaction, and the effects with it, roll back). Outside a job's run (a synchronous call) it does nothing.
 */
export async function sealRunningJob(tx: Sql): Promise<void> {
  await running.getStore()?.seal(tx)
}

/**
 * Names the effect the current job's answer stands on (the run it stored, or an earlier identical run it names): an
 * identical submission shares this job only while the effect stands (DefineOptions.stands). Outside a job: nothing.
 */
export function noteRunningJobEffect(effect: string): void {
  running.getStore()?.note(effect)
}
