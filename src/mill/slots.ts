// The mill's shared worker slots: each worker writes its thread, counters, start times and heap into one slot; the
// main thread reads them lock-free for agents, memory, utilization and the hard stop.
import {
  F_BUSY, F_DONE, F_FAILURES, F_TASK, F_THREAD, SLOT_COUNT, SLOT_FIELDS,
  type SharedSlots,
} from './types.js'

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

/** What the live workers hold: their count and the sum of their committed V8 heaps (as last written by each). */
export interface MillMemory {
  workers: number
  heap_bytes: number
}

export type SlotReader = ReturnType<typeof createSlots>

export function createSlots(nice: number) {
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

  return {
    /** Handed to every worker as its workerData. */
    shared: slots,
    startedAt,

    /** Busy time of every worker slot over the capacity (threads × time since createdAt): 0..1. */
    utilization(threads: number, createdAt: number): number {
      const now = Date.now()
      const capacity = threads * Math.max(1, now - createdAt)
      let busy = 0
      for (let slot = 0; slot < claimedSlots(); slot++) busy += slotBusyMs(slot, now)
      return Math.min(1, busy / capacity)
    },

    /** The live workers (by thread id) as agents. */
    agents(live: Set<number>): MillAgent[] {
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

    memory(live: Set<number>): MillMemory {
      let workers = 0
      let bytes = 0
      for (let slot = 0; slot < claimedSlots(); slot++) {
        if (!live.has(Atomics.load(counters, 1 + slot * SLOT_FIELDS + F_THREAD))) continue
        workers++
        bytes += heapBytes[slot]!
      }
      return { workers, heap_bytes: bytes }
    },
  }
}
