// Live counters of the caller surface: where each request stopped in the onion, and refusals by code.
import type { RefusalCode } from '../http/refusal.js'

export const ONION_LAYERS = [
  'transport',
  'limits',
  'rate_limit',
  'validation',
  'refusal_gate',
  'mill_handler',
  'store',
] as const
export type OnionLayer = (typeof ONION_LAYERS)[number]

/** The layer that refuses each code. */
export const LAYER_OF_REFUSAL: Record<RefusalCode, OnionLayer> = {
  payload_too_large: 'limits',
  request_timeout: 'limits',
  headers_too_large: 'limits',
  rate_limited: 'rate_limit',
  invalid_input: 'validation',
  not_found: 'refusal_gate',
  method_not_allowed: 'refusal_gate',
  unauthorized: 'refusal_gate',
  forbidden: 'refusal_gate',
  token_completion_unavailable: 'refusal_gate',
  over_limit: 'refusal_gate',
  occupied: 'refusal_gate',
  conflict: 'store',
  timeout: 'mill_handler',
  internal: 'mill_handler',
}

export interface CallerCounters {
  requests: number
  completed: number
  /** Completed requests whose operation read or wrote the store. */
  storeTouched: number
  refusals: Partial<Record<RefusalCode, number>>
  /** Envelopes found without the contract flags (must stay 0; the truth summary shows it). */
  envelopesWithoutFlags: number
  refused(code: RefusalCode): void
  onion(): Array<{ layer: OnionLayer; passed: number; refused: number }>
}

export function createCallerCounters(): CallerCounters {
  const counters: CallerCounters = {
    requests: 0,
    completed: 0,
    storeTouched: 0,
    refusals: {},
    envelopesWithoutFlags: 0,
    refused(code) {
      counters.refusals[code] = (counters.refusals[code] ?? 0) + 1
    },
    onion() {
      const refusedAt = new Map<OnionLayer, number>()
      for (const [code, n] of Object.entries(counters.refusals)) {
        const layer = LAYER_OF_REFUSAL[code as RefusalCode]
        refusedAt.set(layer, (refusedAt.get(layer) ?? 0) + n)
      }
      // A request passed a layer when it stopped at a later one or completed.
      let reached = counters.requests
      return ONION_LAYERS.map((layer) => {
        if (layer === 'store') {
          const refused = refusedAt.get(layer) ?? 0
          return { layer, passed: counters.storeTouched, refused }
        }
        const refused = refusedAt.get(layer) ?? 0
        reached -= refused
        return { layer, passed: Math.max(0, reached), refused }
      })
    },
  }
  return counters
}
