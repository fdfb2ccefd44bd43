// Job event streams per client across replicas (REDIS_URL): each open stream is a lease in one sorted set per client
// (member: this replica's id and the stream's number; score: when the lease lapses, on Redis's own clock so replicas'
// clocks do not matter). A replica renews its leases while their streams are open; one that dies stops renewing, and
// its leases lapse within LEASE_MS instead of holding the client's slots for ever. While Redis cannot answer, each
// replica counts its own streams (the same fallback as the rate limit: a bound of replicas × cap, and no wait).
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { releaseOnce, tooManyStreams, type StreamSlots } from '../http/stream-slots.js'

/** How long a lease lives without renewal; renewed every third of it. */
export const LEASE_MS = 30_000

const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`

// KEYS[1] the client's set; ARGV: cap, member, lease ms. Drops lapsed leases, then takes one if under the cap.
const TAKE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`

// KEYS[1] the client's set; ARGV: member, lease ms. Pushes a held lease's end out (XX: never re-adds a released one).
const RENEW = `${NOW_MS}
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`

type LeaseClient = Redis & {
  ncmStreamTake(key: string, cap: number, member: string, leaseMs: number): Promise<number>
  ncmStreamRenew(key: string, member: string, leaseMs: number): Promise<number>
}

export interface SharedStreamSlots extends StreamSlots {
  /** Stops renewing (at close); leases still held lapse on their own. */
  stop(): void
}

/**
 * Stream slots counted in Redis under `${keyPrefix}sse:<client>`, falling back to `local` (this replica's own count)
 * for a stream taken while Redis does not answer. `onError` hears every failed command, for the log.
 */
export function sharedStreamSlots(
  client: Redis, keyPrefix: string, perClient: number, local: StreamSlots,
  { leaseMs = LEASE_MS, onError }: { leaseMs?: number; onError?: (err: Error, what: string) => void } = {},
): SharedStreamSlots {
  const redis = client as LeaseClient
  if (!redis.ncmStreamTake) redis.defineCommand('ncmStreamTake', { numberOfKeys: 1, lua: TAKE })
  if (!redis.ncmStreamRenew) redis.defineCommand('ncmStreamRenew', { numberOfKeys: 1, lua: RENEW })
  const replica = randomBytes(6).toString('hex')
  const held = new Map<string, string>() // member → key
  let serial = 0
  let open = 0
  const failed = (what: string) => (err: Error) => onError?.(err, what)

  const renew = setInterval(() => {
    for (const [member, key] of held) redis.ncmStreamRenew(key, member, leaseMs).catch(failed('renewing a stream lease'))
  }, Math.max(10, Math.floor(leaseMs / 3)))
  renew.unref()

  return {
    async take(clientId) {
      const key = `${keyPrefix}sse:${clientId}`
      const member = `${replica}:${++serial}`
      let taken: number
      try {
        taken = await redis.ncmStreamTake(key, perClient, member, leaseMs)
      } catch (err) {
        failed('taking a stream lease')(err as Error)
        return local.take(clientId)
      }
      if (taken === 0) throw tooManyStreams(perClient)
      held.set(member, key)
      open++
      return releaseOnce(() => {
        open--
        held.delete(member)
        redis.zrem(key, member).catch(failed('releasing a stream lease'))
      })
    },
    open: () => open + local.open(),
    stop: () => clearInterval(renew),
  }
}
