// Requests that match no route (404s, and wrong methods answered by the not-found handlers) are logged in bounded
// amounts: each window logs the first few in full (Fastify's incoming/completed lines) and one summary line for the
// rest. A scanner's flood of unmatched paths logged 2–3 lines a request before.
import { LogController, type FastifyBaseLogger, type FastifyRequest } from 'fastify'

export interface UnmatchedLogOptions {
  /** Length of a window (ms). */
  windowMs?: number
  /** Unmatched requests logged in full per window; the rest are counted in its summary. */
  sampled?: number
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether an unmatched request is logged in full or only counted (our own "refused" lines ask it too). */
    unmatchedLog: UnmatchedRequestLog
  }
}

type Decided = { is404?: boolean; server?: { log: FastifyBaseLogger } }

export class UnmatchedRequestLog extends LogController {
  private readonly windowMs: number
  private readonly sampled: number
  private readonly decisions = new WeakMap<object, boolean>()
  private windowStart = 0
  private seen = 0
  private summary: NodeJS.Timeout | null = null

  constructor(options: UnmatchedLogOptions = {}) {
    super({})
    this.windowMs = options.windowMs ?? 60_000
    this.sampled = options.sampled ?? 5
  }

  /** True for an unmatched request past its window's sample: counted, not logged. */
  isSuppressed(req: FastifyRequest | Decided): boolean {
    if ((req as Decided).is404 !== true) return false
    let logged = this.decisions.get(req)
    if (logged === undefined) {
      const now = Date.now()
      if (now - this.windowStart >= this.windowMs) this.roll(now)
      logged = ++this.seen <= this.sampled
      this.decisions.set(req, logged)
      if (!logged && !this.summary) this.scheduleSummary((req as Decided).server?.log)
    }
    return !logged
  }

  override isLogDisabled(req: FastifyRequest): boolean {
    return this.isSuppressed(req) || super.isLogDisabled(req)
  }

  private roll(now: number): void {
    this.windowStart = now
    this.seen = 0
  }

  /** At the window's end, one line for what it did not log (the timer does not keep the process alive). */
  private scheduleSummary(log: FastifyBaseLogger | undefined): void {
    const started = this.windowStart
    this.summary = setTimeout(() => {
      this.summary = null
      const unmatched = this.seen
      if (this.windowStart === started) this.roll(Date.now())
      log?.info({ unmatched, logged: Math.min(unmatched, this.sampled), window_s: this.windowMs / 1000 },
        `${unmatched - this.sampled} more requests matched no route (only the first ${this.sampled} of each window are logged in full)`)
    }, Math.max(0, started + this.windowMs - Date.now()))
    this.summary.unref()
  }
}
