// @fastify/rate-limit's two stores, which its index builds internally and exports no types for. The limiter's shared
// store (limiter-store.ts) composes them: Redis first, this process's memory while Redis is away.
interface RateLimitCount { current: number; ttl: number }
interface RateLimitStoreImpl {
  incr(key: string, cb: (err: Error | null, res: RateLimitCount | null) => void, timeWindow: number, max: number): void
  read(key: string, cb: (err: Error | null, res: RateLimitCount | null) => void, timeWindow: number, max: number): void
  child(routeOptions: unknown): RateLimitStoreImpl
}

declare module '@fastify/rate-limit/store/RedisStore.js' {
  const RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: unknown, key?: string) => RateLimitStoreImpl
  export default RedisStore
}

declare module '@fastify/rate-limit/store/LocalStore.js' {
  const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => RateLimitStoreImpl
  export default LocalStore
}
