// The mill: a piscina worker pool for heavy operations, with soft deadlines, a hard stop and a bounded queue (SPEC §1.5).
// Heavy work runs on at most `threads` workers at once; the pool keeps one more for the short tasks a request waits for
// (SHORT_TASKS: a large body's parse), so those never queue behind a minute of solving.
import { Piscina } from 'piscina'
import { Refusal } from '../http/refusal.js'
import { createControl } from './progress.js'
import { TaskCancelled, taskScope } from './scope.js'
import { createSlots, type MillAgent, type MillMemory } from './slots.js'
import type { TaskMessage } from './types.js'
import { armHardStop, HARD_STOP_GRACE_MS, watchTask } from './watch.js'
import { workerFile } from './worker-file.js'
import type { In, Out, TaskName } from './tasks/index.js'
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../inputs/search.js'

export { HARD_STOP_GRACE_MS } from './watch.js'
export type { MillAgent, MillMemory } from './slots.js'
export { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS }

export interface MillOptions {
  /** Workers heavy work may hold at once (MILL_THREADS); the pool has one more, for short tasks. */
  threads: number
  maxQueue: number
  /** Niceness of the worker threads (0 = as the event loop); default 10. */
  nice?: number
  /** Tasks one owner may have queued or running outside jobs (JOBS_PER_CLIENT, its share of the queue); unbounded when absent. */
  perOwner?: number
  /** How long a request's task (outside a job, with an owner) may wait for a worker: default MAX_TIMEOUT_MS. */
  lineWaitMs?: number
}

export interface RunOptions {
  /** The task's time budget, counted from when a worker starts it; the soft deadline is that start + timeoutMs. */
  timeoutMs: number
  /** Named in refusals. */
  op?: string
  /**
   * Whose share of the queue the task counts in: the owner of the principal a request's work is for. Null for the host's
   * own work; a job's tasks count as their job (in its owner's JOBS_PER_CLIENT), whatever is named here.
   */
  owner: string | null
  /** Buffers of the input that move to the worker instead of being copied (`movable`): gone from here once sent. */
  transfer?: ArrayBuffer[]
  /**
   * The task does only short work this time, whatever its name: a body read in the mill for a client that may not have
   * heavy work done (BodyBlocksPayload.mayWorkHeavy). It runs beside heavy work, as SHORT_TASKS do.
   */
  short?: boolean
}

export interface MillStats {
  threads: number
  max_queue: number
  /** Tasks waiting for a worker. */
  queue_size: number
  /** Tasks given to a worker: heavy ones (at most `threads`) and short ones. */
  running: number
  completed: number
  /** Fraction of the pool's capacity (threads × time since start) spent running tasks; 0..1. */
  utilization: number
  timeouts: number
  /** Tasks refused for want of a worker: the queue was full, or a request's task waited its budget in the line. */
  rejected_full: number
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

/**
 * Tasks a request waits for whose cost is linear in bytes the host already holds (at most a body's 16 MiB): a body's
 * parse, a pin's hashing and encoding, a stored run's members or a page of bars written, a large answer read for MCP.
 * The pool keeps a worker that heavy work never takes, so they never wait behind it.
 */
const SHORT_TASKS: ReadonlySet<TaskName> = new Set<TaskName>([
  'body.parse', 'jobs.storedInput', 'run.items', 'cli.command', 'mcp.message', 'mcp.largeAnswer', 'access.pin_read', 'access.pin_bytes', 'access.canonical_json', 'access.pinBody', 'trading.runMembers', 'trading.barsPage',
])

/** Whether a task runs as short work: one of SHORT_TASKS, or one its caller marked short (RunOptions.short). */
export const isShortRun = (task: TaskName, options: Pick<RunOptions, 'short'>): boolean => options.short === true || SHORT_TASKS.has(task)

/** How long a mill worker beyond the first may sit idle before it exits. */
const IDLE_WORKER_MS = 60_000

export function createMill({ threads, maxQueue, nice = 10, perOwner, lineWaitMs = MAX_TIMEOUT_MS }: MillOptions): Mill {
  const slots = createSlots(nice)
  const createdAt = Date.now()
  let lastTaskId = 0
  const worker = workerFile()
  // The pool, and with it the first worker, starts with the first task: a host that has not run a heavy operation yet
  // holds no worker (~16 MiB of RSS), and start-up does not share the CPU with a worker loading every engine's modules.
  let started: Piscina | null = null
  const pool = () => started ??= new Piscina({
    filename: worker.filename,
    // Then one worker is kept warm; the others start when tasks queue and leave after a minute idle, so an idle host
    // does not hold a V8 heap and every engine's modules per thread (tens of MiB each).
    minThreads: 1,
    maxThreads: threads + 1,
    idleTimeout: IDLE_WORKER_MS,
    // piscina's run-time histogram makes its `utilization` getter cost ~0.5 ms per read; ours is a few additions.
    recordTiming: false,
    // Between tasks a worker waits on its event loop (Atomics.waitAsync), not in Atomics.wait: a thread blocked there
    // never runs V8's own collection tasks nor the collection worker.ts asks for, and kept its garbage (~100 MiB each).
    atomics: 'async',
    workerData: slots.shared,
    // A worker run from TypeScript sources needs their loader (worker-file.ts).
    execArgv: worker.execArgv,
  })
  const liveThreads = () => new Set(started ? started.threads.map((w) => w.threadId) : [])
  /** Heavy tasks holding one of the `threads` workers (from the call on, when one is free), and those waiting for one. */
  let heavy = 0
  const waiting: Array<{ go: () => void; fail: (err: Error) => void }> = []
  /** Short tasks given to the pool. */
  let short = 0
  const running = () => heavy + short
  const queueSize = () => (started?.queueSize ?? 0) + waiting.length
  /** Tasks of requests (outside jobs) queued or running, by owner. */
  const byOwner = new Map<string, number>()
  let timeouts = 0
  let rejectedFull = 0
  let closed = false

  /** A heavy task would wait beyond the queue bound. */
  const saturated = () => heavy >= threads && queueSize() >= maxQueue
  const release = (owner: string | null) => {
    if (owner === null) return
    const left = byOwner.get(owner)! - 1
    if (left === 0) byOwner.delete(owner)
    else byOwner.set(owner, left)
  }

  /**
   * Waits for one of the `threads` workers heavy work may hold. A cancelled job's task leaves the line; a request's
   * task (outside a job: a client waits for it) leaves it after `maxWaitMs`, refused `occupied`, so what a client
   * holds while it waits (its connection, its body's memory, its share) has a deadline however long heavy work runs.
   */
  function heavyTurn(signal: AbortSignal | undefined, maxWaitMs: number | null, op: string | undefined): Promise<void> {
    if (heavy < threads) {
      heavy++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const settle = () => {
        signal?.removeEventListener('abort', cancelled)
        clearTimeout(timer)
        const at = waiting.indexOf(waiter)
        if (at >= 0) waiting.splice(at, 1)
      }
      const waiter = {
        go: () => {
          settle()
          heavy++
          resolve()
        },
        fail: (err: Error) => {
          settle()
          reject(err)
        },
      }
      function cancelled() {
        waiter.fail(new TaskCancelled(false))
      }
      signal?.addEventListener('abort', cancelled, { once: true })
      if (maxWaitMs !== null) {
        timer = setTimeout(() => {
          rejectedFull++
          waiter.fail(new Refusal('occupied', `every mill worker stayed busy for the ${maxWaitMs} ms this task may wait for one; try again`, {
            op,
            retryAfterS: Math.max(1, Math.ceil(maxWaitMs / 1000)),
          }))
        }, maxWaitMs)
        timer.unref()
      }
      waiting.push(waiter)
    })
  }
  const heavyDone = () => {
    heavy--
    waiting.shift()?.go()
  }

  return {
    async run<K extends TaskName>(task: K, payload: In<K>, options: RunOptions): Promise<Out<K>> {
      const { timeoutMs, op, owner, transfer } = options
      if (closed) throw new Refusal('occupied', 'the mill is shut down', { op, retryAfterS: 5 })
      const isShort = isShortRun(task, options)
      if (isShort ? (started?.queueSize ?? 0) >= maxQueue && running() > threads : saturated()) {
        rejectedFull++
        throw new Refusal('occupied', `the mill's queue is full (${maxQueue} waiting tasks)`, {
          op,
          retryAfterS: Math.max(1, Math.ceil(timeoutMs / 1000)),
        })
      }
      const scope = taskScope.getStore()
      if (scope?.signal.aborted) throw new TaskCancelled(false)
      const counted = scope || owner === null ? null : owner
      const held = counted === null ? 0 : byOwner.get(counted) ?? 0
      if (counted !== null && perOwner !== undefined && held >= perOwner) {
        throw new Refusal('occupied', `this client already has ${perOwner} tasks in the mill (JOBS_PER_CLIENT, its share of the queue); ` +
          'wait for one to end', { op, retryAfterS: 2, hints: { limit: 'JOBS_PER_CLIENT', value: perOwner } })
      }
      if (counted !== null) byOwner.set(counted, held + 1)
      try {
        if (isShort) short++
        else await heavyTurn(scope?.signal, counted === null ? null : lineWaitMs, op)
      } catch (err) {
        release(counted)
        throw err
      }
      lastTaskId = lastTaskId >= 0x7fffffff ? 1 : lastTaskId + 1
      const message: TaskMessage = { id: lastTaskId, task, payload, timeoutMs, control: createControl() }
      const hardStop = armHardStop(slots.startedAt, message.id, timeoutMs)
      const watch = scope ? watchTask(message.control, scope, hardStop.abort) : null
      try {
        const result = await pool().run(message, { signal: hardStop.signal, ...(transfer ? { transferList: transfer } : {}) })
        // A task that stopped early on its flag returns a partial answer: it must not be taken for the answer.
        if (watch?.cancelled()) throw new TaskCancelled(false)
        return result
      } catch (err) {
        if (watch?.cancelled()) throw err instanceof TaskCancelled ? err : new TaskCancelled(watch.terminated())
        if (hardStop.signal.aborted) {
          timeouts++
          throw new Refusal('timeout', `the task ran past its budget of ${timeoutMs} ms (+${HARD_STOP_GRACE_MS} ms grace); its worker was stopped`, { op })
        }
        throw err
      } finally {
        watch?.stop()
        hardStop.disarm()
        if (isShort) short--
        else heavyDone()
        release(counted)
      }
    },
    isSaturated: saturated,
    agents: () => slots.agents(liveThreads()),
    memory: () => slots.memory(liveThreads()),
    stats: () => ({
      threads,
      max_queue: maxQueue,
      queue_size: queueSize(),
      running: running(),
      completed: started?.completed ?? 0,
      utilization: slots.utilization(threads, createdAt),
      timeouts,
      rejected_full: rejectedFull,
    }),
    async close() {
      if (closed) return
      closed = true
      for (const waiter of waiting.splice(0)) waiter.fail(new Refusal('occupied', 'the mill is shut down', { retryAfterS: 5 }))
      // The host closes the mill after its requests are answered and its jobs handed back: a task still running
      // belongs to nobody. piscina's close() (even forced) waits up to 30 s for tasks a worker has already taken,
      // then throws; destroy() ends the workers now and fails their tasks.
      await started?.destroy()
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
