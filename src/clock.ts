// The host's one notion of "now": injected everywhere so tests can move time by hand.
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
