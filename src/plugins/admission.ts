// Admission: the host's occupancy (live-bound / shedding / draining) measured from event-loop delay and the mill queue.
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance } from 'fastify'
import { Refusal } from '../http/refusal.js'
import type { Occupancy } from '../http/envelope.js'
import type { Principal } from '../access/policy.js'

export interface Admission {
  state(): Occupancy
  /** Why the state is not live-bound, or null. */
  reason(): string | null
  /**
   * Admits work in the mill for a principal: the access policy's compute.heavy first (every way into the mill asks it,
   * whatever action its door named), then `occupied` unless the host is live-bound.
   */
  admitHeavy(op: string, principal: Principal): void
  /** The refusal admitHeavy would throw, or null: for work that is skipped rather than refused (an exact search on `auto`). */
  heavyRefusal(op: string, principal: Principal): Refusal | null
  eventLoopDelayMs(): number
  eventLoopUtilization(): number
  /** Forces a state for tests of the refusal paths; null returns to measurement. */
  override(state: Occupancy | null): void
}

declare module 'fastify' {
  interface FastifyInstance {
    admission: Admission
  }
}

/** Default sampling period of the event-loop delay (ms). */
export const ADMISSION_SAMPLE_MS = 500

export interface AdmissionOptions {
  maxEventLoopDelayMs: number
  /** Sampling period of event-loop delay (ms). */
  sampleIntervalMs?: number
}

export default fp(
  async function admissionPlugin(app: FastifyInstance, opts: AdmissionOptions) {
    // No thresholds: under-pressure only measures here; the refusal is ours (occupied, enveloped).
    const sampleIntervalMs = opts.sampleIntervalMs ?? ADMISSION_SAMPLE_MS
    await app.register(underPressure, { sampleInterval: sampleIntervalMs })
    // The first sample windows include start-up work (schema compilation, seeding), not load: ignore them. A timer
    // ends the warm-up, so reading the delay (the envelope and health do, on every answer) reads no clock.
    let measuring = false
    let warmUp: NodeJS.Timeout | null = null
    app.addHook('onReady', async () => {
      warmUp = setTimeout(() => { measuring = true }, 2 * sampleIntervalMs).unref()
    })
    app.addHook('onClose', async () => {
      if (warmUp) clearTimeout(warmUp)
    })
    // under-pressure says Infinity when a whole sample window passed without one delay sample: the loop was blocked
    // for at least the window. That lower bound is the figure (Infinity is no number in JSON, and no measurement).
    const eventLoopDelay = () => {
      if (!measuring) return 0
      const delay = app.memoryUsage().eventLoopDelay
      return Number.isFinite(delay) ? delay : sampleIntervalMs
    }
    let draining = false
    let forced: Occupancy | null = null

    const reason = (): string | null => {
      if (forced && forced !== 'live-bound') return `forced to ${forced}`
      if (draining) return 'shutdown in progress'
      const delay = eventLoopDelay()
      if (delay > opts.maxEventLoopDelayMs) {
        return `event-loop delay ${delay.toFixed(1)} ms is over its limit of ${opts.maxEventLoopDelayMs} ms`
      }
      if (app.mill.isSaturated()) return 'the mill is busy and its queue is full'
      return null
    }
    const state = (): Occupancy => {
      if (forced) return forced
      if (draining) return 'draining'
      return reason() === null ? 'live-bound' : 'shedding'
    }
    // The policy is the host's (the access plugin registers after this one); read when heavy work is asked for.
    const heavyRefusal = (op: string, principal: Principal): Refusal | null => {
      const denied = refusalOf(() => app.policy.authorize(principal, 'compute.heavy', undefined, op))
      if (denied) return denied
      const current = state()
      if (current === 'live-bound') return null
      return new Refusal('occupied', `the host is ${current}: ${reason()}`, { op, retryAfterS: current === 'draining' ? 30 : 2 })
    }

    app.decorate('admission', {
      state,
      reason,
      admitHeavy(op: string, principal: Principal) {
        const refusal = heavyRefusal(op, principal)
        if (refusal) throw refusal
      },
      heavyRefusal,
      eventLoopDelayMs: eventLoopDelay,
      eventLoopUtilization: () => app.memoryUsage().eventLoopUtilized,
      override(next: Occupancy | null) {
        forced = next
      },
    } satisfies Admission)
    app.addHook('preClose', async () => {
      draining = true
    })
  },
  { name: 'ncm-admission', fastify: '5.x', dependencies: ['ncm-mill'] },
)

/** The refusal a check throws, or null when it passes. */
function refusalOf(check: () => void): Refusal | null {
  try {
    check()
    return null
  } catch (err) {
    if (err instanceof Refusal) return err
    throw err
  }
}
