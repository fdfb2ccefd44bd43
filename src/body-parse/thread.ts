// The body thread: large request bodies arrive here in transferred blocks and are decoded, scanned and parsed off the
// event loop; the parsed value (or the refusal) goes back. One message protocol, keyed by the body's id.
import { getPriority, setPriority } from 'node:os'
import { getHeapStatistics } from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import { parseBody, textOf, type BodyFormat, type BodyOutcome } from './formats.js'
import { takeTextMembers } from './text-members.js'

/** The deepest value sent back by structured clone (1,800 levels still arrive; 2,000 do not). */
const CLONE_MAX_DEPTH = 512

export type ToThread =
  | { id: number; block: Uint8Array }
  | { id: number; end: BodyFormat }
  | { id: number; drop: true }

export interface FromThread {
  id: number
  outcome: BodyOutcome
  /** This thread's committed V8 heap after the parse, for the host's memory budget. */
  heapBytes: number
}

/** What the reader starts the thread with. */
export interface ThreadData {
  /** Niceness of this thread (0 = as the event loop). */
  nice: number
}

// A parse competes with the loop for the cores: lowered like the mill's workers, it yields to the loop (health checks,
// other requests) on a busy machine. setpriority(PRIO_PROCESS, 0) names the calling thread on Linux only; elsewhere
// it would lower the whole process. Never asks for more priority than the thread has; failure is harmless.
const { nice } = (workerData ?? { nice: 0 }) as ThreadData
if (process.platform === 'linux' && nice > 0) {
  try {
    setPriority(Math.max(getPriority(), nice))
  } catch {
    // keep the default priority
  }
}

const pending = new Map<number, Uint8Array[]>()

parentPort!.on('message', (message: ToThread) => {
  if ('block' in message) {
    const blocks = pending.get(message.id)
    if (blocks) blocks.push(message.block)
    else pending.set(message.id, [message.block])
  } else if ('end' in message) {
    const blocks = pending.get(message.id) ?? []
    pending.delete(message.id)
    const bytes = blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks)
    let outcome: BodyOutcome
    try {
      outcome = parseBody(bytes, message.end)
      // The receiving side's deserializer recurses: from about 2,000 levels the loop's thread gets a messageerror
      // (stack overflow) and never the value. A deep value goes back as its checked text, for JSON.parse there.
      if ('depth' in outcome && outcome.depth! > CLONE_MAX_DEPTH) outcome = { ok: true, json: textOf(bytes) }
      else if ('value' in outcome && message.end.kind === 'json' && message.end.textMembers) {
        const texts = takeTextMembers(outcome.value, message.end.textMembers)
        if (texts) outcome.texts = texts
      }
    } catch (err) {
      // Not a rule of ours: the parse itself failed (e.g. out of memory); the request answers 500 and the thread lives.
      outcome = { ok: false, refusal: { code: 'internal', reason: `the body could not be parsed: ${(err as Error).message}`, options: {} } }
    }
    parentPort!.postMessage({ id: message.id, outcome, heapBytes: getHeapStatistics().total_heap_size } satisfies FromThread)
  } else {
    pending.delete(message.id)
  }
})
