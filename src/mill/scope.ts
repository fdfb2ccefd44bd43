// The job a mill task belongs to, carried by AsyncLocalStorage: operations call mill.run as they always did and never
// learn whether they run for a waiting request or a background job; the job runner opens the scope around them.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ProgressSnapshot } from './progress.js'

export interface TaskScope {
  /** Aborted when the job is cancelled: the task's flag is raised, and its worker is replaced if it does not stop. */
  signal: AbortSignal
  /** Called with the task's progress when it changed (at most every PROGRESS_POLL_MS). */
  onProgress(snapshot: ProgressSnapshot): void
  /** The job's own budget (JOB_MAX_MS): a task of a job may be given up to this instead of a request's 60 s. */
  maxMs?: number
}

export const taskScope = new AsyncLocalStorage<TaskScope>()

/** How often the main thread reads a running task's progress. */
export const PROGRESS_POLL_MS = 250
/** How long a cancelled task may take to notice its flag before its worker is terminated and replaced. */
export const CANCEL_GRACE_MS = 200

/** A task stopped because its job was cancelled (not a refusal: the job ends `cancelled`). */
export class TaskCancelled extends Error {
  override name = 'TaskCancelled'
  constructor(readonly terminated: boolean) {
    super(terminated ? 'cancelled; the worker did not stop in time and was replaced' : 'cancelled')
  }
}
