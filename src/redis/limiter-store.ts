// The rate limit's store with REDIS_URL set: @fastify/rate-limit's Redis store, so a client's quota is one count
// across every replica. While Redis cannot answer, each replica counts in its own memory instead.
//
// Why neither fail closed nor fully open: closed turns a Redis outage into an outage of every surface (health included,
// so an orchestrator would restart healthy replicas that cannot fix Redis); fully open drops abuse protection exactly
// while the system is degraded. Falling back to per-replica counts keeps a bound (at most replicas × quota per
// window) and adds no wait: commands fail at once while disconnected (connection.ts, no offline queue).
import type { Redis } from 'ioredis'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'

type Count = { current: number; ttl: number }
type Callback = (err: Error | null, res: Count | null) => void
type StoreMethod = 'incr' | 'read'

/** Which count the limiter used last, for health and readiness. */
export interface LimiterState {
  store: 'redis' | 'memory'
  /** Set while counting in memory because Redis failed: since when, and why. */
  degraded: { since: string; reason: string } | null
}

export interface SharedLimiter {
  /** Pass as @fastify/rate-limit's `store` option. */
  readonly Store: new (params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) => object
  state(): LimiterState
}

interface Stores { redis: RateLimitStoreImpl; local: RateLimitStoreImpl }

export function sharedLimiter(client: Redis, keyPrefix: string, onChange?: (state: LimiterState) => void): SharedLimiter {
  let degraded: LimiterState['degraded'] = null
  const state = (): LimiterState => ({ store: degraded ? 'memory' : 'redis', degraded })

  const call = (stores: Stores, method: StoreMethod, key: string, cb: Callback, timeWindow: number, max: number) => {
    stores.redis[method](key, (err, res) => {
      if (!err && res) {
        if (degraded) {
          degraded = null
          onChange?.(state())
        }
        return cb(null, res)
      }
      if (!degraded) {
        degraded = { since: new Date().toISOString(), reason: err?.message ?? 'no answer' }
        onChange?.(state())
      }
      stores.local[method](key, cb, timeWindow, max)
    }, timeWindow, max)
  }

  class FallbackStore {
    constructor(private readonly stores: Stores) {}
    incr(key: string, cb: Callback, timeWindow: number, max: number) {
      call(this.stores, 'incr', key, cb, timeWindow, max)
    }
    read(key: string, cb: Callback, timeWindow: number, max: number) {
      call(this.stores, 'read', key, cb, timeWindow, max)
    }
    child(routeOptions: unknown) {
      return new FallbackStore({ redis: this.stores.redis.child(routeOptions), local: this.stores.local.child(routeOptions) })
    }
  }

  class Store extends FallbackStore {
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const continueExceeding = params.continueExceeding ?? false
      const exponentialBackoff = params.exponentialBackoff ?? false
      super({
        redis: new RedisStore(continueExceeding, exponentialBackoff, client, keyPrefix),
        local: new LocalStore(continueExceeding, exponentialBackoff),
      })
    }
  }

  return { Store, state }
}
