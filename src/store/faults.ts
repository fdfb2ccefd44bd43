// What a store error means for the client and for work in flight: a transient fault (a connection cut, a conflict lost,
// a busy database) is retried and, when a request must answer, answered `occupied` with Retry-After; a full disk is a
// refusal of its own kind (`occupied`, the reason saying so, a longer Retry-After) and turns health to `fail`; a row
// that went away under a write (a dataset deleted while a job ran) is a conflict. None of them is a 500.
import { Refusal } from '../http/refusal.js'

export type StoreFault = 'transient' | 'full'

/** PostgreSQL SQLSTATEs of faults that pass: connection exceptions (class 08), shutdowns, conflicts, too many clients. */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '40001', '40P01', '53000', '53200', '53300', '55P03', '08000', '08001', '08003', '08004', '08006', '08007', '08P01'])
/** The server's disk_full. */
const FULL_SQLSTATES = new Set(['53100'])
const TRANSIENT_ERRNOS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED'])
/** node-postgres reports a connection lost under it by message only. */
const TRANSIENT_MESSAGES = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|terminating connection due to administrator command|the database system is (?:shutting down|starting up)|Connection ended unexpectedly/i

/** The kind of store fault an error is, or null when it is no store fault (a bug, a refusal, a constraint). */
export function storeFaultOf(err: unknown): StoreFault | null {
  if (typeof err !== 'object' || err === null) return null
  const { code, message } = err as { code?: unknown; message?: unknown }
  if (typeof code === 'string') {
    if (code === 'ENOSPC' || code === 'EDQUOT' || code.startsWith('SQLITE_FULL') || FULL_SQLSTATES.has(code)) return 'full'
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || TRANSIENT_SQLSTATES.has(code) || TRANSIENT_ERRNOS.has(code)) return 'transient'
  }
  if (typeof message === 'string') {
    if (/database or disk is full|No space left on device/i.test(message)) return 'full'
    if (TRANSIENT_MESSAGES.test(message)) return 'transient'
  }
  // An error wrapping another (AggregateError, `cause`): the fault of what it wraps.
  const cause = (err as { cause?: unknown }).cause
  return cause !== undefined && cause !== err ? storeFaultOf(cause) : null
}

export interface RetryOptions {
  /** Tries in all (the first included). */
  attempts?: number
  baseMs?: number
  maxMs?: number
  /** Stops waiting (and rethrows the last fault) when aborted. */
  signal?: AbortSignal
  /** Told of each fault before the wait that follows it. */
  onRetry?: (err: unknown, attempt: number) => void
}

/** Up to base × 2^attempt ms, jittered so replicas retrying the same cut do not collide in step. */
export const backoffMs = (attempt: number, baseMs = 50, maxMs = 2000): number =>
  Math.min(maxMs, baseMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2)

/** Runs fn, again after a backoff while it fails with a transient store fault; any other error (or the last) is thrown. */
export async function retryTransient<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { attempts = 8, baseMs = 50, maxMs = 2000, signal, onRetry } = options
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      if (attempt >= attempts || storeFaultOf(err) !== 'transient' || signal?.aborted) throw err
      onRetry?.(err, attempt)
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, baseMs, maxMs)))
    }
  }
}

/** PostgreSQL's foreign_key_violation, SQLite's extended code for the same. */
const isForeignKeyViolation = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
}

/** The refusal a store error is for a client, or null when it is none of the store's faults (a bug stays a bug). */
export function storeRefusal(err: unknown): Refusal | null {
  const fault = storeFaultOf(err)
  if (fault === 'full') {
    return new Refusal('occupied', 'the store has no space left (disk full): this write was not kept; retry once space is freed', {
      retryAfterS: 30, hints: { store: 'full' },
    })
  }
  if (fault === 'transient') {
    return new Refusal('occupied', 'the database did not answer this time (a connection was lost, or a write lost a conflict); retry shortly', {
      retryAfterS: 1, hints: { store: 'transient' },
    })
  }
  if (isForeignKeyViolation(err)) {
    return new Refusal('conflict', 'a row this write refers to was deleted meanwhile (a dataset deleted while a job ran); nothing of it was stored')
  }
  return null
}
