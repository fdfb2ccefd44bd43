// The mill: a piscina worker pool for heavy operations, with soft deadlines, a hard stop and a bounded queue (SPEC §1.5).
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import { Refusal } from '../refusal.js'
import { createControl, readProgress, requestCancel } from './progress.js'
import { CANCEL_GRACE_MS, PROGRESS_POLL_MS, TaskCancelled, taskScope, type TaskScope } from './scope.js'
import {
  F_BUSY, F_DONE, F_FAILURES, F_TASK, F_THREAD, SLOT_COUNT, SLOT_FIELDS,
  type SharedSlots, type TaskMessage,
} from './types.js'
import type { In, Out, TaskName } from './tasks/index.js'

/** After the soft deadline the task has this long to answer before its worker is terminated. */
export const HARD_STOP_GRACE_MS = 1000
export const DEFAULT_TIMEOUT_MS = 10_000
export const MAX_TIMEOUT_MS = 60_000

export interface MillOptions {
  threads: number
  maxQueue: number
  /** Niceness of the worker threads (0 = as the event loop); default 10. */
  nice?: number
}

export interface RunOptions {
  /** The task's time budget, counted from when a worker starts it; the soft deadline is that start + timeoutMs. */
  timeoutMs: number
  /** Named in refusals. */
  op?: string
}

export interface MillAgent {
  id: string
  kind: 'mill-worker'
  thread_id: number
  state: 'idle' | 'busy'
  tasks_done: number
  failures: number
  since: string
  /** Fraction of its life spent running tasks; 0..1. */
  utilization: number
}

export interface MillStats {
  threads: number
  max_queue: number
  queue_size: number
  running: number
  completed: number
  /** Fraction of the pool's capacity (threads × time since start) spent running tasks; 0..1. */
  utilization: number
  timeouts: number
  rejected_full: number
}

/** What the live workers hold: their count and the sum of their committed V8 heaps (as last written by each). */
export interface MillMemory {
  workers: number
  heap_bytes: number
}

export interface Mill {
  /** Runs a named task in a worker: its input and answer types come from the task table. */
  run<K extends TaskName>(task: K, input: In<K>, options: RunOptions): Promise<Out<K>>
  /** True when a new task would have to wait beyond the queue bound. */
  isSaturated(): boolean
  agents(): MillAgent[]
  stats(): MillStats
  /** Memory of the live workers (optional: a borrowed or fake mill may not know it). */
  memory?(): MillMemory
  close(): Promise<void>
}

/** How long a mill worker beyond the first may sit idle before it exits. */
const IDLE_WORKER_MS = 60_000

export function createMill({ threads, maxQueue, nice = 10 }: MillOptions): Mill {
  const slots: SharedSlots = {
    counters: new SharedArrayBuffer(4 * (1 + SLOT_COUNT * SLOT_FIELDS)),
    since: new SharedArrayBuffer(8 * SLOT_COUNT),
    taskStarted: new SharedArrayBuffer(8 * SLOT_COUNT),
    busyMs: new SharedArrayBuffer(8 * SLOT_COUNT),
    heapBytes: new SharedArrayBuffer(8 * SLOT_COUNT),
    nice,
  }
  const counters = new Int32Array(slots.counters)
  const since = new Float64Array(slots.since)
  const taskStarted = new Float64Array(slots.taskStarted)
  const busyMs = new Float64Array(slots.busyMs)
  const heapBytes = new Float64Array(slots.heapBytes)
  const createdAt = Date.now()
  let lastTaskId = 0
  const claimedSlots = () => Math.min(Atomics.load(counters, 0), SLOT_COUNT)
  /** When the task started in a worker, or null while it waits in the queue. */
  const startedAt = (id: number): number | null => {
    for (let slot = 0; slot < claimedSlots(); slot++) {
      if (Atomics.load(counters, 1 + slot * SLOT_FIELDS + F_TASK) === id) return taskStarted[slot]!
    }
    return null
  }
  /** Run time of a worker's finished tasks plus the one it is running now (ms). */
  const slotBusyMs = (slot: number, now: number): number => {
    const base = 1 + slot * SLOT_FIELDS
    const running = Atomics.load(counters, base + F_BUSY) ? Math.max(0, now - taskStarted[slot]!) : 0
    return busyMs[slot]! + running
  }
  const fromSource = extname(fileURLToPath(import.meta.url)) === '.ts'
  const pool = new Piscina({
    filename: fileURLToPath(new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url)),
    // One worker kept warm; the others start when tasks queue and leave after a minute idle, so an idle host does
    // not hold a V8 heap and every engine's modules per thread (tens of MiB each).
    minThreads: 1,
    maxThreads: threads,
    maxQueue,
    idleTimeout: threads > 1 ? IDLE_WORKER_MS : Number.POSITIVE_INFINITY,
    // piscina's run-time histogram makes its `utilization` getter cost ~0.5 ms per read; ours is a few additions.
    recordTiming: false,
    workerData: slots,
    // Running from TypeScript sources (tests, `npm run dev`): workers need the same loader.
    execArgv: fromSource ? ['--import', 'tsx'] : [],
  })
  let running = 0
  let timeouts = 0
  let rejectedFull = 0
  let closed = false

  /** Aborts the task once it has run for budget + grace; time spent waiting in the queue does not count. */
  function armHardStop(id: number, timeoutMs: number) {
    const controller = new AbortController()
    let timer: NodeJS.Timeout
    const check = () => {
      const started = startedAt(id)
      if (started === null) {
        timer = setTimeout(check, timeoutMs + HARD_STOP_GRACE_MS)
        return
      }
      const remaining = started + timeoutMs + HARD_STOP_GRACE_MS - Date.now()
      if (remaining <= 0) controller.abort()
      else timer = setTimeout(check, remaining)
    }
    timer = setTimeout(check, timeoutMs + HARD_STOP_GRACE_MS)
    return { signal: controller.signal, abort: () => controller.abort(), disarm: () => clearTimeout(timer) }
  }

  /**
   * While a job's task runs: hands its progress to the job every PROGRESS_POLL_MS when it changed, and on cancel
   * raises the task's flag, then terminates the worker (piscina replaces it) if the task has not ended in CANCEL_GRACE_MS.
   */
  function watchTask(control: SharedArrayBuffer, scope: TaskScope, terminate: () => void) {
    let seen = 0
    let cancelled = false
    let terminated = false
    let escalation: NodeJS.Timeout | undefined
    const poll = setInterval(() => {
      const snapshot = readProgress(control)
      if (snapshot.writes !== seen) {
        seen = snapshot.writes
        scope.onProgress(snapshot)
      }
    }, PROGRESS_POLL_MS)
    const onAbort = () => {
      cancelled = true
      requestCancel(control)
      escalation = setTimeout(() => {
        terminated = true
        terminate()
      }, CANCEL_GRACE_MS)
    }
    if (scope.signal.aborted) onAbort()
    else scope.signal.addEventListener('abort', onAbort, { once: true })
    return {
      cancelled: () => cancelled,
      terminated: () => terminated,
      stop() {
        clearInterval(poll)
        clearTimeout(escalation)
        scope.signal.removeEventListener('abort', onAbort)
        // The last numbers, so a finished task's progress ends at its final count.
        const snapshot = readProgress(control)
        if (snapshot.writes !== seen) scope.onProgress(snapshot)
      },
    }
  }

  /** Busy time of every worker slot over the capacity since the mill started: 0..1. */
  function utilization(): number {
    const now = Date.now()
    const capacity = threads * Math.max(1, now - createdAt)
    let busy = 0
    for (let slot = 0; slot < claimedSlots(); slot++) busy += slotBusyMs(slot, now)
    return Math.min(1, busy / capacity)
  }

  return {
    async run<K extends TaskName>(task: K, payload: In<K>, { timeoutMs, op }: RunOptions): Promise<Out<K>> {
      if (closed) throw new Refusal('occupied', 'the mill is shut down', { op, retryAfterS: 5 })
      if (pool.queueSize >= maxQueue && running >= threads) {
        rejectedFull++
        throw new Refusal('occupied', `the mill's queue is full (${maxQueue} waiting tasks)`, {
          op,
          retryAfterS: Math.max(1, Math.ceil(timeoutMs / 1000)),
        })
      }
      const scope = taskScope.getStore()
      if (scope?.signal.aborted) throw new TaskCancelled(false)
      lastTaskId = lastTaskId >= 0x7fffffff ? 1 : lastTaskId + 1
      const budget = timeoutMs
      const message: TaskMessage = { id: lastTaskId, task, payload, timeoutMs: budget, control: createControl() }
      const hardStop = armHardStop(message.id, budget)
      const watch = scope ? watchTask(message.control, scope, hardStop.abort) : null
      running++
      try {
        const result = await pool.run(message, { signal: hardStop.signal })
        // A task that stopped early on its flag returns a partial answer: it must not be taken for the answer.
        if (watch?.cancelled()) throw new TaskCancelled(false)
        return result
      } catch (err) {
        if (watch?.cancelled()) throw err instanceof TaskCancelled ? err : new TaskCancelled(watch.terminated())
        if (hardStop.signal.aborted) {
          timeouts++
          throw new Refusal('timeout', `the task ran past its budget of ${budget} ms (+${HARD_STOP_GRACE_MS} ms grace); its worker was stopped`, { op })
        }
        throw err
      } finally {
        watch?.stop()
        hardStop.disarm()
        running--
      }
    },
    isSaturated: () => running >= threads && pool.queueSize >= maxQueue,
    agents: () => {
      const live = new Set(pool.threads.map((w) => w.threadId))
      const now = Date.now()
      const out: MillAgent[] = []
      for (let slot = 0; slot < claimedSlots(); slot++) {
        const base = 1 + slot * SLOT_FIELDS
        const threadId = Atomics.load(counters, base + F_THREAD)
        if (!live.has(threadId)) continue
        out.push({
          id: `mill-${threadId}`,
          kind: 'mill-worker',
          thread_id: threadId,
          state: Atomics.load(counters, base + F_BUSY) ? 'busy' : 'idle',
          tasks_done: Atomics.load(counters, base + F_DONE),
          failures: Atomics.load(counters, base + F_FAILURES),
          since: new Date(since[slot]!).toISOString(),
          utilization: Math.min(1, slotBusyMs(slot, now) / Math.max(1, now - since[slot]!)),
        })
      }
      return out
    },
    memory: () => {
      const live = new Set(pool.threads.map((w) => w.threadId))
      let workers = 0
      let bytes = 0
      for (let slot = 0; slot < claimedSlots(); slot++) {
        if (!live.has(Atomics.load(counters, 1 + slot * SLOT_FIELDS + F_THREAD))) continue
        workers++
        bytes += heapBytes[slot]!
      }
      return { workers, heap_bytes: bytes }
    },
    stats: () => ({
      threads,
      max_queue: maxQueue,
      queue_size: pool.queueSize,
      running,
      completed: pool.completed,
      utilization: utilization(),
      timeouts,
      rejected_full: rejectedFull,
    }),
    async close() {
      if (closed) return
      closed = true
      await pool.close({ force: true })
    },
  }
}

/**
 * Clamps a caller's timeout_ms into the mill's budget range: a request's 60 s, or inside a job its JOB_MAX_MS (only an
 * async submission's input may ask for more than 60 s: the synchronous path validates against MAX_TIMEOUT_MS).
 */
export function budgetOf(timeoutMs: number | undefined): number {
  const ceiling = taskScope.getStore()?.maxMs ?? MAX_TIMEOUT_MS
  return Math.min(ceiling, Math.max(1, timeoutMs ?? DEFAULT_TIMEOUT_MS))
}
