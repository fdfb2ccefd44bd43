// One memory admission for what grows with a request (issue #30 item 3): a large body reserves its bytes before it is
// read, an answer that grows with its input reserves the largest input's bytes before its handler runs (or, where the
// handler learns the answer's size first, as a pin read does, those bytes: req.holdAnswer), and an event stream
// reserves them before it writes a job's answer. Reservations count per client (Principal.owner) and in total;
// past either the request is refused `occupied` with Retry-After at once, nothing read or computed. A reservation is
// held until its response closes, and a response whose client stops reading is ended after SLOW_CLIENT_MS, so a
// client that never reads cannot keep what another client needs.
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Refusal } from '../http/refusal.js'

/**
 * A socket's libuv handle: bytes handed to the kernel that it has not yet taken (`writeQueueSize`). Node documents no
 * public figure for them, and `writableLength` drops to 0 once everything is handed over, so progress is read here.
 */
interface SocketWithHandle extends Socket {
  _handle?: { writeQueueSize?: number } | null
}

export interface MemoryAdmissionOptions {
  /** Bodies up to this many bytes are not counted (BODY_LIMIT_BYTES). */
  smallBodyBytes: number
  /** What a body of unknown length and a large answer reserve (LARGE_BODY_LIMIT_BYTES). */
  largeBytes: number
  /** Bytes reserved at once, all clients together (MEMORY_ADMISSION_BYTES). */
  totalBytes: number
  /** Bytes one client may hold reserved at once (MEMORY_PER_CLIENT_BYTES). */
  perClientBytes: number
  /** A response whose client takes nothing for this long, bytes waiting, is ended (SLOW_CLIENT_MS). */
  slowClientMs: number
}

export interface MemoryAdmission {
  /** Reserves bytes for owner, or throws `occupied` with Retry-After; answers the release (idempotent). */
  reserve(owner: string, bytes: number, what: 'body' | 'answer'): () => void
  /** A large answer's reservation: the largest input's bytes (an answer that grows with its input grows to that), or the bytes given. */
  reserveAnswer(owner: string, bytes?: number): () => void
  /**
   * An answer's reservation held until res closes, watched for a client that stops reading: the bytes given, at most the
   * largest input's (what every large answer reserved before its size was known); throws `occupied` like reserve.
   */
  holdUntilSent(owner: string, res: ServerResponse, bytes: number): void
  /** Ends res when its client takes nothing for SLOW_CLIENT_MS while bytes wait to go out; stops at its close. */
  watch(res: ServerResponse): void
  /** Bytes reserved now, in total or by one owner. */
  held(owner?: string): number
  /** Reservations refused since start. */
  refused(): number
  /** Responses ended since start because their client stopped reading. */
  slowEnded(): number
}

declare module 'fastify' {
  interface FastifyInstance {
    memory: MemoryAdmission
  }
  interface FastifyContextConfig {
    /** The route's answer grows with its input (a pin's content, a patch, a listing): it reserves memory first. */
    largeAnswer?: boolean
    /** What a large answer of this route reserves when it is bounded below LARGE_BODY_LIMIT_BYTES (a page). */
    answerBytes?: number
  }
  interface FastifyRequest {
    /**
     * Reserves bytes for this request's answer until its response closes, or throws `occupied` (Retry-After): for an
     * answer whose size its handler learns before it holds it (a pin read knows the stored size before reading the bytes).
     */
    holdAnswer(bytes: number): void
  }
}

/**
 * The bytes a request's body reserves: its declared length, or the most it may be when streamed; 0 for a small one.
 * Never more than the largest body limit: a longer one is refused 413 by its parser after a few bytes, not held.
 */
function bodyBytes(req: FastifyRequest, smallBodyBytes: number, largeBytes: number): number {
  const length = req.headers['content-length']
  if (length !== undefined) return Number(length) > smallBodyBytes ? Math.min(Number(length), largeBytes) : 0
  return req.headers['transfer-encoding'] !== undefined ? largeBytes : 0 // a streamed body of unknown length may be anything
}

const MiB = 2 ** 20
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`

export function createMemoryAdmission(opts: Omit<MemoryAdmissionOptions, 'smallBodyBytes'>): MemoryAdmission & { close(): void } {
  const byOwner = new Map<string, number>()
  let total = 0
  let refused = 0
  let slowEnded = 0

  const reserve = (owner: string, bytes: number, what: 'body' | 'answer'): (() => void) => {
    const mine = byOwner.get(owner) ?? 0
    if (mine + bytes > opts.perClientBytes || total + bytes > opts.totalBytes) {
      refused++
      const own = mine + bytes > opts.perClientBytes
      throw new Refusal('occupied', own
        ? `this client holds ${mib(mine)} of large bodies and answers; a large ${what} needs ${mib(bytes)} more and a client may hold ${mib(opts.perClientBytes)} (MEMORY_PER_CLIENT_BYTES); retry when one is done`
        : `the host holds ${mib(total)} of large bodies and answers; a large ${what} needs ${mib(bytes)} more of ${mib(opts.totalBytes)} (MEMORY_ADMISSION_BYTES); retry shortly`, {
        retryAfterS: 1,
        hints: own ? { limit: 'MEMORY_PER_CLIENT_BYTES', value: opts.perClientBytes } : { limit: 'MEMORY_ADMISSION_BYTES', value: opts.totalBytes },
      })
    }
    byOwner.set(owner, mine + bytes)
    total += bytes
    let held = true
    return () => {
      if (!held) return
      held = false
      total -= bytes
      const left = byOwner.get(owner)! - bytes
      if (left <= 0) byOwner.delete(owner)
      else byOwner.set(owner, left)
    }
  }

  // The watch: one sweep timer over the watched responses. Progress is any byte taken (what waits shrank, or a drain);
  // a response with nothing waiting is never slow (the host may be computing its answer).
  interface Watched { waiting: number; queued: number; since: number }
  const watched = new Map<ServerResponse, Watched>()
  let sweeper: NodeJS.Timeout | null = null
  const queuedOf = (res: ServerResponse) => (res.socket as SocketWithHandle | null)?._handle?.writeQueueSize ?? 0
  const sweep = () => {
    const now = performance.now()
    for (const [res, entry] of watched) {
      const waiting = res.writableLength
      const queued = queuedOf(res)
      if (waiting === 0 || waiting < entry.waiting || queued < entry.queued) entry.since = now
      entry.waiting = waiting
      entry.queued = queued
      if (now - entry.since >= opts.slowClientMs) {
        watched.delete(res)
        slowEnded++
        // Destroying the response closes its socket: every reservation and slot held by it is given back on 'close'.
        res.destroy()
      }
    }
    if (watched.size === 0 && sweeper) {
      clearInterval(sweeper)
      sweeper = null
    }
  }
  const watch = (res: ServerResponse) => {
    if (res.destroyed || watched.has(res)) return
    const entry: Watched = { waiting: 0, queued: 0, since: performance.now() }
    watched.set(res, entry)
    const progress = () => { entry.since = performance.now() }
    const socket = res.socket
    socket?.on('drain', progress)
    res.once('close', () => {
      watched.delete(res)
      socket?.off('drain', progress)
    })
    if (!sweeper) {
      sweeper = setInterval(sweep, Math.max(10, Math.min(1000, opts.slowClientMs / 4)))
      sweeper.unref()
    }
  }

  // One close listener a response, however many reservations it holds (each pin read of a /run batch holds one).
  const heldBy = new WeakMap<ServerResponse, Array<() => void>>()
  const holdUntilSent = (owner: string, res: ServerResponse, bytes: number) => {
    const release = reserve(owner, Math.min(bytes, opts.largeBytes), 'answer')
    if (res.destroyed) return release()
    const held = heldBy.get(res)
    if (held) return void held.push(release)
    heldBy.set(res, [release])
    // The response's close comes however it ends: sent, failed, ended as slow, or the client gone.
    res.once('close', () => {
      for (const each of heldBy.get(res) ?? []) each()
      heldBy.delete(res)
    })
    watch(res)
  }

  return {
    reserve,
    reserveAnswer: (owner, bytes = opts.largeBytes) => reserve(owner, bytes, 'answer'),
    holdUntilSent,
    watch,
    held: (owner) => (owner === undefined ? total : byOwner.get(owner) ?? 0),
    refused: () => refused,
    slowEnded: () => slowEnded,
    close() {
      if (sweeper) clearInterval(sweeper)
      sweeper = null
      watched.clear()
    },
  }
}

const BODY_RELEASE = Symbol('ncm.bodyReservation')
const RESPONSE = Symbol('ncm.response')
type HoldingRequest = FastifyRequest & { [BODY_RELEASE]?: () => void; [RESPONSE]?: ServerResponse | null }

export default fp(
  async function memoryAdmissionPlugin(app: FastifyInstance, opts: MemoryAdmissionOptions) {
    const memory = createMemoryAdmission(opts)
    app.decorate('memory', memory)
    app.addHook('onClose', async () => memory.close())
    app.decorateRequest(RESPONSE, null)
    app.decorateRequest('holdAnswer', function holdAnswer(this: HoldingRequest, bytes: number) {
      memory.holdUntilSent(this.principal.owner, this[RESPONSE]!, bytes)
    })
    // A large body reserves its bytes before it is read (the access plugin has named its principal by now).
    app.addHook('onRequest', (req: HoldingRequest, reply, done) => {
      req[RESPONSE] = reply.raw
      const bytes = bodyBytes(req, opts.smallBodyBytes, opts.largeBytes)
      if (bytes === 0) return done()
      try {
        const release = memory.reserve(req.principal.owner, bytes, 'body')
        req[BODY_RELEASE] = release
        // A client gone mid-body gets no answer: its reservation comes back when its request closes.
        req.raw.once('close', release)
      } catch (err) {
        return done(err as Refusal)
      }
      done()
    })
    app.addHook('onSend', (_req, reply, payload, done) => {
      // A body refused as too slow is still arriving: the connection closes after the answer instead of reading it on.
      if (reply.statusCode === 408) reply.header('connection', 'close')
      // A streamed answer (a large answer's parts, a CSV download) waits on its client: one that stops reading is cut.
      else if (typeof (payload as { pipe?: unknown } | null)?.pipe === 'function') memory.watch(reply.raw)
      done(null, payload)
    })
    app.addHook('onResponse', (req: HoldingRequest, _reply, done) => {
      req[BODY_RELEASE]?.()
      done()
    })
    const holdAnswer = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      try {
        memory.holdUntilSent(req.principal.owner, reply.raw, req.routeOptions.config.answerBytes ?? opts.largeBytes)
      } catch (err) {
        return done(err as Refusal)
      }
      done()
    }
    app.addHook('onRoute', (route) => {
      if (!route.config?.largeAnswer) return
      const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
      route.preHandler = [...own, holdAnswer]
    })
  },
  { name: 'ncm-memory-admission', fastify: '5.x', dependencies: ['ncm-access'] },
)
