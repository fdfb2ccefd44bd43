// Shapes shared by the mill's pool (main thread) and its workers.

export interface TaskContext {
  /** Epoch ms by which the task should stop by itself and report a partial answer. */
  deadline: number
}

export type MillTask = (payload: unknown, context: TaskContext) => unknown

export interface TaskMessage {
  task: string
  payload: unknown
  deadline: number
}

/** Per-worker counters live in shared memory so the main thread can show them without asking the worker. */
export const SLOT_COUNT = 256
export const SLOT_FIELDS = 4 // threadId, busy, done, failures
export const F_THREAD = 0
export const F_BUSY = 1
export const F_DONE = 2
export const F_FAILURES = 3

export interface SharedSlots {
  /** Int32: [0] = next free slot; then SLOT_COUNT × SLOT_FIELDS counters. */
  counters: SharedArrayBuffer
  /** Float64: SLOT_COUNT start times (epoch ms). */
  since: SharedArrayBuffer
}
