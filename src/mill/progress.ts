// Progress and cancellation across the worker boundary: one small SharedArrayBuffer per task. The worker writes
// plain numbers (no messages, no locks), the main thread reads them on a timer; a flag in the same buffer cancels.

export const PHASES = [
  'starting', 'solving', 'encoding', 'searching', 'scoring', 'simulating', 'backtesting', 'tokenizing', 'racing', 'packing', 'finishing',
] as const
export type Phase = (typeof PHASES)[number]

export const COUNTERS = ['conflicts', 'decisions', 'restarts', 'learned', 'folds_done', 'folds_total', 'configs_done', 'configs_total'] as const
export type CounterName = (typeof COUNTERS)[number]

// Int32 head: [0] cancel flag, [1] phase index, [2] writes (a reader sees whether anything changed).
const I_CANCEL = 0
const I_PHASE = 1
const I_WRITES = 2
const HEAD_BYTES = 16
// Float64 body: [0] done, [1] total (NaN = unknown), then one slot per counter (NaN = not reported).
const F_DONE = 0
const F_TOTAL = 1
const F_COUNTERS = 2
export const CONTROL_BYTES = HEAD_BYTES + 8 * (F_COUNTERS + COUNTERS.length)

export function createControl(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(CONTROL_BYTES)
  new Float64Array(buffer, HEAD_BYTES).fill(Number.NaN)
  return buffer
}

/** The worker's side: what engines call. Each call is a few stores into shared memory. */
export interface ProgressSink {
  phase(name: Phase): void
  /** `done` of `total` units (total null when the work has no known size). */
  advance(done: number, total: number | null): void
  counter(name: CounterName, value: number): void
}

export const NO_PROGRESS: ProgressSink = { phase: () => {}, advance: () => {}, counter: () => {} }

export function progressSink(buffer: SharedArrayBuffer): ProgressSink {
  const head = new Int32Array(buffer, 0, HEAD_BYTES / 4)
  const body = new Float64Array(buffer, HEAD_BYTES)
  return {
    phase(name) {
      head[I_PHASE] = PHASES.indexOf(name)
      head[I_WRITES]!++
    },
    advance(done, total) {
      body[F_DONE] = done
      body[F_TOTAL] = total ?? Number.NaN
      head[I_WRITES]!++
    },
    counter(name, value) {
      body[F_COUNTERS + COUNTERS.indexOf(name)] = value
      head[I_WRITES]!++
    },
  }
}

/** Worker side: has the main thread asked this task to stop? */
export function cancelFlag(buffer: SharedArrayBuffer): () => boolean {
  const head = new Int32Array(buffer, 0, HEAD_BYTES / 4)
  return () => Atomics.load(head, I_CANCEL) === 1
}

/** Main side: ask the task to stop (engines poll the flag between units of work). */
export function requestCancel(buffer: SharedArrayBuffer): void {
  Atomics.store(new Int32Array(buffer, 0, HEAD_BYTES / 4), I_CANCEL, 1)
}

export interface ProgressSnapshot {
  writes: number
  phase: Phase
  done: number | null
  total: number | null
  counters: Partial<Record<CounterName, number>>
}

/** Main side: the numbers as they stand (a torn read shows a value one write old, which is harmless for display). */
export function readProgress(buffer: SharedArrayBuffer): ProgressSnapshot {
  const head = new Int32Array(buffer, 0, HEAD_BYTES / 4)
  const body = new Float64Array(buffer, HEAD_BYTES)
  const counters: Partial<Record<CounterName, number>> = {}
  COUNTERS.forEach((name, i) => {
    const value = body[F_COUNTERS + i]!
    if (!Number.isNaN(value)) counters[name] = value
  })
  const done = body[F_DONE]!
  const total = body[F_TOTAL]!
  return {
    writes: Atomics.load(head, I_WRITES),
    phase: PHASES[Math.max(0, head[I_PHASE]!)] ?? 'starting',
    done: Number.isNaN(done) ? null : done,
    total: Number.isNaN(total) ? null : total,
    counters,
  }
}
