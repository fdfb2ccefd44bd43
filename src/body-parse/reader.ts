// Reads a request body and parses it: small bodies on the event loop, large ones in the mill (the one worker pool, its
// task `body.parse`). A large body is copied once, chunk by chunk as it arrives, into 1 MiB blocks that move (are not
// copied) to the worker, so no single step on the loop costs more than a block's copy. What remains on the loop is the
// parsed value's structured clone back (cheap for strings, about the parse's own cost for bodies of many values, which
// JSON_MAX_VALUES bounds). A body read as `bytes`
// (a CSV import) is not parsed at all: its blocks are the body, for the operation to move to the task that reads them;
// so is a large JSON or text body of an operation that reads its input in the mill (BodyBlocks).
import type { Readable } from 'node:stream'
import { errorCodes } from 'fastify'
import { Refusal } from '../http/refusal.js'
import { joined, BodyBlocks, parseBody, type BodyFailure, type BodyFormat, type BodyOutcome, type JsonFormat } from './formats.js'

/**
 * Bodies up to this many bytes are parsed on the loop: their parse costs less than the trip to a worker. Values, not
 * bytes, are what a parse costs (`[0,0,…]` packs 500k values in 1 MB: 60 ms on the loop), so the bound is low.
 */
export const OFF_LOOP_BODY_BYTES = 64 * 1024
const BLOCK_BYTES = 1024 * 1024

/**
 * Parses a large body's blocks off the loop (the mill's `body.parse`), counted in `owner`'s share of the mill; the
 * blocks are the caller's to move. Rejects with a Refusal when the mill cannot take it (occupied, shut down).
 */
export type ParseOffLoop = (blocks: Uint8Array[], format: BodyFormat, owner: string | null) => Promise<BodyOutcome>

export interface BodyReaderOptions {
  /** Where large bodies are parsed. */
  parseOffLoop: ParseOffLoop
  /**
   * Told when a body comes back from the mill holding more values than a body parsed on the loop may
   * (LOOP_BODY_MAX_VALUES), with the route it is for; it throws to refuse it (the tripwire, under test).
   */
  overLoop?: (route: string) => void
  /** Bodies larger than this (or of unknown length) are parsed off the loop; default OFF_LOOP_BODY_BYTES. */
  offLoopBytes?: number
  /** A body not received whole this long after its reading began is refused request_timeout (SLOW_CLIENT_MS). */
  deadlineMs?: number
}

/** What a body is read for: its declared length (NaN: unknown), the route's limit, how to parse it, and for whom. */
export interface BodyRequest {
  contentLength: number
  limit: number
  format: BodyFormat
  /** Whose share of the mill a large body's parse counts in. */
  owner: string | null
  /** The route's URL pattern, named by the tripwire. */
  route: string
}

export interface BodyReader {
  /** Reads `payload` and resolves with the parsed body, or rejects with Fastify's or our error. */
  read(payload: Readable, request: BodyRequest): Promise<unknown>
  /** Whether a body of this declared length (NaN: unknown) is parsed off the loop. */
  offLoopFor(contentLength: number): boolean
  /**
   * A large body already in hand (a /run job's input the mill handed back as bytes) parsed into its value off the loop,
   * as `read` parses one that arrives for `route`. The blocks are the caller's to move.
   */
  parseBlocks(blocks: Uint8Array[], format: JsonFormat, request: Pick<BodyRequest, 'owner' | 'route'>): Promise<unknown>
}

interface BodySink {
  add(bytes: Buffer): void
  finish(): Promise<BodyOutcome>
  /** The body will not be parsed (too large, aborted): drop what was kept. */
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
    // A client gone mid-body may close the stream without an error: the blocks kept for it must still be dropped.
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

/** The error a body's failure is thrown as, wherever the body was parsed (here, or by an operation in the mill). */
export function bodyFailure(outcome: BodyFailure): Error {
  if ('fastify' in outcome) return new errorCodes[outcome.fastify]()
  return new Refusal(outcome.refusal.code, outcome.refusal.reason, outcome.refusal.options)
}

/** The value a body's outcome stands for (a deep one's text parsed here), or its failure thrown. */
export function outcomeValue(outcome: BodyOutcome): unknown {
  if (!outcome.ok) throw bodyFailure(outcome)
  if ('json' in outcome) return JSON.parse(outcome.json)
  return outcome.value
}

export function createBodyReader(options: BodyReaderOptions): BodyReader {
  const offLoopBytes = options.offLoopBytes ?? OFF_LOOP_BODY_BYTES
  const deadlineMs = options.deadlineMs ?? 30_000
  const offLoopFor = (contentLength: number) => Number.isNaN(contentLength) || contentLength > offLoopBytes

  /**
   * A large body: copied into whole blocks as it arrives; the blocks move to a worker, which parses them, or (format
   * `bytes`) are the body, at least one block.
   */
  function millSink(format: BodyFormat, owner: string | null): BodySink {
    let blocks: Uint8Array[] = []
    let block = Buffer.allocUnsafeSlow(BLOCK_BYTES)
    let filled = 0
    const keep = () => {
      if (filled === 0) return
      blocks.push(filled === BLOCK_BYTES ? block : block.subarray(0, filled))
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
          if (filled === BLOCK_BYTES) keep()
        }
      },
      finish() {
        keep()
        const kept = blocks
        blocks = []
        if (format.kind === 'bytes') return Promise.resolve({ ok: true, value: kept.length > 0 ? kept : [new Uint8Array(0)] })
        if (format.inTheMill) {
          const { inTheMill: _, ...parsedThere } = format
          return Promise.resolve({ ok: true, value: new BodyBlocks(kept, parsedThere) })
        }
        return options.parseOffLoop(kept, format, owner)
      },
      abandon() {
        blocks = []
      },
    }
  }

  /** A small body: collected and parsed here, as Fastify's own parser would. */
  function loopSink(format: BodyFormat): BodySink {
    const chunks: Buffer[] = []
    return {
      add: (bytes) => void chunks.push(bytes),
      finish: async () => parseBody(joined(chunks), format),
      abandon: () => {},
    }
  }

  const valueFor = (outcome: BodyOutcome, route: string): unknown => {
    if (outcome.ok && outcome.overLoop) options.overLoop?.(route)
    return outcomeValue(outcome)
  }

  return {
    async read(payload, { contentLength, limit, format, owner, route }) {
      if (contentLength > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()
      const sink = offLoopFor(contentLength) ? millSink(format, owner) : loopSink(format)
      return valueFor(await collect(payload, contentLength, limit, deadlineMs, sink), route)
    },
    offLoopFor,
    async parseBlocks(blocks, format, { owner, route }) {
      return valueFor(await options.parseOffLoop(blocks, format, owner), route)
    },
  }
}
