// Shapes shared by the mill's pool (main thread) and its workers.

import type { ProgressSink } from './progress.js'

export interface TaskContext {
  /** Epoch ms by which the task should stop by itself and report a partial answer. */
  deadline: number
  /** Where engines report how far they are (a few stores into shared memory; free to ignore). */
  progress: ProgressSink
  /** True once the task's job was cancelled: engines that poll a stop condition poll this too. */
  cancelled: () => boolean
}

/** A task: a pure function of its input, run in a worker (input and answer cross the thread by structured clone). */
export type MillTask<I, O> = (input: I, context: TaskContext) => O

/**
 * Any task, as the worker dispatches it by name. Declared as a method so its parameter is bivariant: every typed task
 * fits, and the worker hands it the payload that `Mill.run<K>` typed at the sending end.
 */
export type AnyMillTask = { dispatch(input: unknown, context: TaskContext): unknown }['dispatch']

/** The shape every domain's task table satisfies. */
export type TaskTable = Record<string, MillTask<never, unknown>>

export interface TaskMessage {
  /** Unique per task while it lives: lets the main thread see when it started running. */
  id: number
  task: string
  payload: unknown
  /** The budget; the soft deadline is counted from the moment a worker starts the task, not from enqueueing. */
  timeoutMs: number
  /** Progress counters and the cancel flag (see progress.ts). */
  control: SharedArrayBuffer
}

/** Per-worker counters live in shared memory so the main thread can show them without asking the worker. */
export const SLOT_COUNT = 256
export const SLOT_FIELDS = 5 // threadId, busy, done, failures, running task id
export const F_THREAD = 0
export const F_BUSY = 1
export const F_DONE = 2
export const F_FAILURES = 3
export const F_TASK = 4

export interface SharedSlots {
  /** Int32: [0] = next free slot; then SLOT_COUNT × SLOT_FIELDS counters. */
  counters: SharedArrayBuffer
  /** Float64: SLOT_COUNT worker start times (epoch ms). */
  since: SharedArrayBuffer
  /** Float64: SLOT_COUNT start times of the running task (epoch ms). */
  taskStarted: SharedArrayBuffer
  /** Float64: SLOT_COUNT sums of finished task run times (ms); each slot is written only by its own worker. */
  busyMs: SharedArrayBuffer
  /** Float64: SLOT_COUNT committed V8 heap sizes (bytes) of each worker, written at start and after each task. */
  heapBytes: SharedArrayBuffer
  /** Niceness each worker gives its own thread at start (Linux schedules threads, so only the worker is lowered). */
  nice: number
}
