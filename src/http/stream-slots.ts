// How many event streams each principal holds open (a job's events, an MCP session's standalone stream): a stream
// costs a socket, a subscription and a heartbeat timer for as long as it lasts, so one client opening thousands would
// hold them all. Counted per principal (Principal.owner: an anonymous client by its address).
// This is one process's count; with REDIS_URL the count is shared by every replica (src/redis/stream-leases.ts).
import { Refusal } from './refusal.js'

export interface StreamSlots {
  /** Takes a slot for `client` and answers its release (idempotent), or rejects over_limit with Retry-After. */
  take(client: string): Promise<() => void>
  /** Streams this process holds open now, all clients together. */
  open(): number
}

/** The refusal of a stream over the cap, wherever it was counted. */
export function tooManyStreams(perClient: number): Refusal {
  return new Refusal('over_limit', `this client already holds ${perClient} open event streams (SSE_STREAMS_PER_CLIENT: job events and MCP streams); close one, or poll instead`, {
    retryAfterS: 5,
    hints: { limit: 'SSE_STREAMS_PER_CLIENT', value: perClient },
  })
}

/** A slot's release: the stream ends by several paths (final event, client gone, response closed); it counts once. */
export function releaseOnce(release: () => void): () => void {
  let released = false
  return () => {
    if (released) return
    released = true
    release()
  }
}

export function createStreamSlots(perClient: number): StreamSlots {
  const held = new Map<string, number>()
  let open = 0
  return {
    async take(client) {
      const count = held.get(client) ?? 0
      if (count >= perClient) throw tooManyStreams(perClient)
      held.set(client, count + 1)
      open++
      return releaseOnce(() => {
        open--
        const left = held.get(client)! - 1
        if (left === 0) held.delete(client)
        else held.set(client, left)
      })
    },
    open: () => open,
  }
}
