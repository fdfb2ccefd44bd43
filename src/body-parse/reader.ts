// Reads a request body and parses it: small bodies on the event loop, large ones in the body thread (thread.ts). A large
// body is copied once, chunk by chunk as it arrives, into 1 MiB blocks that are transferred (not copied) to the thread,
// so no single step on the loop costs more than a block's copy. Decoding, scanning and parsing a 15 MB body took
// 80–200 ms of the loop; what remains on it is the parsed value's structured clone back (cheap for strings, about the
// parse's own cost for bodies of many values, which JSON_MAX_VALUES bounds), except for the wide members a route
// takes as text (text-members.ts).
import { createRequire } from 'node:module'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Readable } from 'node:stream'
import { errorCodes } from 'fastify'
import { Refusal } from '../http/refusal.js'
import { parseBody, type BodyFormat, type BodyOutcome } from './formats.js'
import type { FromThread, ThreadData, ToThread } from './thread.js'
import { putTextMembers } from './text-members.js'

/**
 * Bodies up to this many bytes are parsed on the loop: their parse costs less than the trip to the thread. Values,
 * not bytes, are what a parse costs (`[0,0,…]` packs 500k values in 1 MB: 60 ms on the loop), so the bound is low.
 */
export const OFF_LOOP_BODY_BYTES = 64 * 1024
const BLOCK_BYTES = 1024 * 1024
/** The thread exits after this long without a body, so an idle host holds no second V8 heap. */
const IDLE_THREAD_MS = 30_000

export interface BodyReaderOptions {
  /** Bodies larger than this (or of unknown length) are parsed in the thread; default OFF_LOOP_BODY_BYTES. */
  offLoopBytes?: number
  /** Niceness of the body thread (0 = as the event loop); default 10, as the mill's workers. */
  nice?: number
  /** A body not received whole this long after its reading began is refused request_timeout (SLOW_CLIENT_MS). */
  deadlineMs?: number
}

export interface BodyReader {
  /** Reads `payload` (at most `limit` bytes) and resolves with the parsed body, or rejects with Fastify's or our error. */
  read(payload: Readable, contentLength: number, limit: number, format: BodyFormat): Promise<unknown>
  /** Whether a body of this declared length (NaN: unknown) is parsed in the thread. */
  offLoopFor(contentLength: number): boolean
  /** Bodies parsed in the thread since start. */
  offLoop(): number
  /** The body thread's committed V8 heap as it last reported it (0 while no thread runs). */
  memory(): { threads: number; heap_bytes: number }
  close(): Promise<void>
}

interface BodySink {
  add(bytes: Buffer): void
  finish(): Promise<BodyOutcome>
  /** The body will not be parsed (too large, aborted): drop what was sent. */
  abandon(): void
}

/** The refusal of a body that trickles: it would hold its memory reservation and its socket for as long as it likes. */
export function bodyTimeout(deadlineMs: number, received: number): Refusal {
  return new Refusal('request_timeout', `the body did not arrive within ${deadlineMs} ms (${received} bytes received); send it at once`, {
    hints: { limit: 'SLOW_CLIENT_MS', value: deadlineMs },
  })
}

/** Reads a body as Fastify's raw-body reader does: limit, declared length, stream errors as 400; and a deadline. */
function collect(payload: Readable, contentLength: number, limit: number, deadlineMs: number, sink: BodySink): Promise<BodyOutcome> {
  return new Promise<BodyOutcome>((resolve, reject) => {
    let received = 0
    const deadline = setTimeout(() => fail(bodyTimeout(deadlineMs, received)), deadlineMs)
    const stop = () => {
      clearTimeout(deadline)
      payload.removeListener('data', onData)
      payload.removeListener('end', onEnd)
      payload.removeListener('error', onEnd)
      payload.removeListener('close', onClose)
    }
    const fail = (err: Error) => {
      stop()
      sink.abandon()
      reject(err)
    }
    function onData(chunk: Buffer | string) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      received += bytes.length
      if (received > limit) return fail(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
      sink.add(bytes)
    }
    function onEnd(err?: Error & { statusCode?: number }) {
      if (err) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400
        return fail(err)
      }
      if (!Number.isNaN(contentLength) && received !== contentLength) return fail(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH())
      stop()
      sink.finish().then(resolve, reject)
    }
    // A client gone mid-body may close the stream without an error: what was sent to the thread must still be dropped.
    function onClose() {
      fail(Object.assign(new Error('the client closed the connection before the body ended'), { statusCode: 400 }))
    }
    payload.on('data', onData)
    payload.on('end', onEnd)
    payload.on('error', onEnd)
    payload.on('close', onClose)
    payload.resume()
  })
}

function outcomeValue(outcome: BodyOutcome): unknown {
  if (outcome.ok) {
    if ('json' in outcome) return JSON.parse(outcome.json)
    return outcome.texts ? putTextMembers(outcome.value, outcome.texts) : outcome.value
  }
  if ('fastify' in outcome) throw new errorCodes[outcome.fastify]()
  throw new Refusal(outcome.refusal.code, outcome.refusal.reason, outcome.refusal.options)
}

export function createBodyReader(options: BodyReaderOptions = {}): BodyReader {
  const offLoopBytes = options.offLoopBytes ?? OFF_LOOP_BODY_BYTES
  const workerData: ThreadData = { nice: options.nice ?? 10 }
  const deadlineMs = options.deadlineMs ?? 30_000
  const offLoopFor = (contentLength: number) => Number.isNaN(contentLength) || contentLength > offLoopBytes
  const fromSource = extname(fileURLToPath(import.meta.url)) === '.ts'
  let worker: Worker | null = null
  let idleTimer: NodeJS.Timeout | null = null
  let lastId = 0
  let offLoop = 0
  let heapBytes = 0
  const waiting = new Map<number, { resolve: (o: BodyOutcome) => void; reject: (e: Error) => void }>()

  const thread = (): Worker => {
    if (idleTimer) clearTimeout(idleTimer)
    idleTimer = null
    if (worker) return worker
    // From TypeScript sources (tests, `npm run dev`) the thread registers tsx's require hook first: on Node 20 a
    // worker's ESM loader ignores `--import tsx`, its require does not (piscina loads the mill's tasks the same way).
    const started = fromSource
      ? new Worker(`require(${JSON.stringify(createRequire(import.meta.url).resolve('tsx/cjs'))});` +
        `require(${JSON.stringify(fileURLToPath(new URL('./thread.ts', import.meta.url)))})`, { eval: true, workerData })
      : new Worker(new URL('./thread.js', import.meta.url), { workerData })
    started.unref()
    started.on('message', ({ id, outcome, heapBytes: heap }: FromThread) => {
      heapBytes = heap
      const waiter = waiting.get(id)
      waiting.delete(id)
      waiter?.resolve(outcome)
      if (waiting.size === 0) idleAfterwards()
    })
    const fail = (err: Error) => {
      if (worker !== started) return
      worker = null
      for (const waiter of waiting.values()) waiter.reject(new Refusal('internal', `the body thread stopped: ${err.message}`))
      waiting.clear()
    }
    started.on('error', fail)
    // A message that cannot be deserialized names no body: every waiting one fails rather than waiting forever.
    started.on('messageerror', (err) => {
      fail(err)
      void started.terminate()
    })
    started.on('exit', (code) => fail(new Error(`exit code ${code}`)))
    worker = started
    heapBytes = 0
    return started
  }
  const idleAfterwards = () => {
    if (idleTimer) clearTimeout(idleTimer)
    idleTimer = setTimeout(() => {
      if (waiting.size > 0 || !worker) return
      const stopping = worker
      worker = null
      void stopping.terminate()
    }, IDLE_THREAD_MS)
    idleTimer.unref()
  }

  /** A large body: copied into blocks that are transferred to the thread as they fill; the thread parses it. */
  function threadSink(format: BodyFormat): BodySink {
    const id = (lastId = lastId >= 0x7fffffff ? 1 : lastId + 1)
    const target = thread()
    const post = (message: ToThread, transfer: ArrayBuffer[] = []) => target.postMessage(message, transfer)
    let block = Buffer.allocUnsafeSlow(BLOCK_BYTES)
    let filled = 0
    const flush = () => {
      if (filled === 0) return
      post({ id, block: new Uint8Array(block.buffer, 0, filled) }, [block.buffer as ArrayBuffer])
      block = Buffer.allocUnsafeSlow(BLOCK_BYTES)
      filled = 0
    }
    return {
      add(bytes) {
        for (let at = 0; at < bytes.length;) {
          const n = Math.min(bytes.length - at, BLOCK_BYTES - filled)
          bytes.copy(block, filled, at, at + n)
          filled += n
          at += n
          if (filled === BLOCK_BYTES) flush()
        }
      },
      finish() {
        flush()
        offLoop++
        return new Promise<BodyOutcome>((resolve, reject) => {
          waiting.set(id, { resolve, reject })
          post({ id, end: format })
        })
      },
      abandon() {
        post({ id, drop: true })
        if (waiting.size === 0) idleAfterwards()
      },
    }
  }

  /** A small body: collected and parsed here, as Fastify's own parser would. */
  function loopSink(format: BodyFormat): BodySink {
    const chunks: Buffer[] = []
    return {
      add: (bytes) => void chunks.push(bytes),
      finish: async () => parseBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), format),
      abandon: () => {},
    }
  }

  return {
    async read(payload, contentLength, limit, format) {
      if (contentLength > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()
      return outcomeValue(await collect(payload, contentLength, limit, deadlineMs, offLoopFor(contentLength) ? threadSink(format) : loopSink(format)))
    },
    offLoopFor,
    offLoop: () => offLoop,
    memory: () => (worker ? { threads: 1, heap_bytes: heapBytes } : { threads: 0, heap_bytes: 0 }),
    async close() {
      if (idleTimer) clearTimeout(idleTimer)
      const stopping = worker
      worker = null
      for (const waiter of waiting.values()) waiter.reject(new Refusal('occupied', 'the host is shutting down', { retryAfterS: 5 }))
      waiting.clear()
      await stopping?.terminate()
    },
  }
}
