// The host's one notion of "now": injected everywhere so tests can move time by hand.
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

let lastIsoMs = Number.NaN
let lastIso = ''
/**
 * `new Date(ms).toISOString()`, remembering the last instant: answers given in the same millisecond (a burst of
 * health checks) share one string instead of formatting it again (~0.5 µs each).
 */
export function isoAt(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString()
    lastIsoMs = ms
  }
  return lastIso
}
