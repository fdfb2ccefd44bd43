// A mill worker: claims a counter slot in shared memory, then runs named tasks from the task table.
import { getPriority, setPriority } from 'node:os'
import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { threadId } from 'node:worker_threads'
import { workerData } from 'piscina'
import { TASKS } from './tasks/index.js'
import { postable } from './moving.js'
import { cancelFlag, progressSink } from './progress.js'
import {
  F_BUSY, F_DONE, F_FAILURES, F_TASK, F_THREAD, SLOT_COUNT, SLOT_FIELDS, type AnyMillTask, type SharedSlots, type TaskMessage,
} from './types.js'

const shared = workerData as SharedSlots
const counters = new Int32Array(shared.counters)
const since = new Float64Array(shared.since)
const taskStarted = new Float64Array(shared.taskStarted)
const busyMs = new Float64Array(shared.busyMs)
const heapBytes = new Float64Array(shared.heapBytes)
const slot = Atomics.add(counters, 0, 1) % SLOT_COUNT
const base = 1 + slot * SLOT_FIELDS
Atomics.store(counters, base + F_THREAD, threadId)
Atomics.store(counters, base + F_BUSY, 0)
Atomics.store(counters, base + F_DONE, 0)
Atomics.store(counters, base + F_FAILURES, 0)
busyMs[slot] = 0
// setpriority(PRIO_PROCESS, 0) names the calling thread on Linux: only this worker is lowered, never the event loop.
// Elsewhere it would lower the whole process, so it is only done on Linux; failure (e.g. a sandbox) is harmless.
if (process.platform === 'linux' && shared.nice > 0) {
  try {
    // Never ask for more priority than the thread has (that needs privileges): only ever lower it.
    setPriority(Math.max(getPriority(), shared.nice))
  } catch {
    // keep the default priority
  }
}
since[slot] = Date.now()
heapBytes[slot] = getHeapStatistics().total_heap_size

// A worker's garbage is collected when V8 chooses, and V8 keeps the heap it has committed long after what it holds
// live has shrunk: hundreds of small tasks left each worker ~100 MiB, one large task its few hundred, and RSS kept
// them. So a worker collects itself once its committed heap has grown by HEAP_SLACK since its last collection (the
// committed size, not the used one: a collection during the task may have freed the garbage and kept the pages),
// after its answer has gone. Node has no API to ask for a collection but `gc`, which --expose-gc puts in contexts
// made after it (as Jest's leak detector gets it).
setFlagsFromString('--expose-gc')
const collect = runInNewContext('gc') as () => void
const HEAP_SLACK = 32 * 2 ** 20
let committedAfterCollect = getHeapStatistics().total_heap_size
let collecting = false
function collectWhenGrown(): void {
  if (collecting || getHeapStatistics().total_heap_size < committedAfterCollect + HEAP_SLACK) return
  collecting = true
  setImmediate(() => {
    collecting = false
    collect()
    committedAfterCollect = getHeapStatistics().total_heap_size
    heapBytes[slot] = committedAfterCollect
  })
}

/** The task table by name; messages come from `Mill.run`, whose signature matched each payload to its task. */
const byName = new Map<string, AnyMillTask>(Object.entries(TASKS))

export default function runTask(message: TaskMessage): unknown {
  const task = byName.get(message.task)
  if (!task) throw new Error(`unknown mill task ${message.task}`)
  const start = Date.now()
  taskStarted[slot] = start
  Atomics.store(counters, base + F_TASK, message.id)
  Atomics.store(counters, base + F_BUSY, 1)
  try {
    const result = task(message.payload, {
      deadline: start + message.timeoutMs,
      progress: progressSink(message.control),
      cancelled: cancelFlag(message.control),
    })
    Atomics.add(counters, base + F_DONE, 1)
    return postable(result)
  } catch (err) {
    Atomics.add(counters, base + F_FAILURES, 1)
    throw err
  } finally {
    busyMs[slot] = busyMs[slot]! + (Date.now() - start)
    // a few µs a task, so the host can account for each worker's memory without asking it
    heapBytes[slot] = getHeapStatistics().total_heap_size
    Atomics.store(counters, base + F_BUSY, 0)
    Atomics.store(counters, base + F_TASK, 0)
    collectWhenGrown()
  }
}
