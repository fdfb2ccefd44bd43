// Connections to the Redis every replica shares (REDIS_URL): the only module that opens them, plus the health probe.
import { createRequire } from 'node:module'
import type { Redis, RedisOptions } from 'ioredis'
import { redisDisplayUrl } from '../config.js'

/**
 * Commands on the request path (rate-limit counts, event publishes, health pings) fail at once while Redis is away
 * instead of queueing behind a reconnect: a request must not wait on an outage. Reconnects go on in the background.
 */
const FAIL_FAST: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: 1000,
  retryStrategy: (times) => Math.min(times * 100, 2000),
}

/**
 * BullMQ's own connections block (BRPOPLPUSH and friends) and must retry forever (`maxRetriesPerRequest: null`, its
 * requirement for workers); it duplicates this one for each Queue, Worker and blocking reader.
 */
const BLOCKING: RedisOptions = {
  maxRetriesPerRequest: null,
  connectTimeout: 2000,
  retryStrategy: (times) => Math.min(times * 100, 2000),
}

/** The client type, for modules outside this room that hold one. */
export type RedisClient = Redis

// A pub/sub subscriber waits the same way: its (un)subscribes queue for the connection, and ioredis subscribes again
// after a reconnect.
const OPTIONS = { commands: FAIL_FAST, subscriber: BLOCKING, queue: BLOCKING } as const
export type RedisPurpose = keyof typeof OPTIONS

/** Opens a client named after its purpose (CLIENT LIST shows who is who). */
export function openRedis(url: string, purpose: RedisPurpose): Redis {
  const options = OPTIONS[purpose]
  // ioredis (~0.1 s to import) is loaded by the first connection: a host without REDIS_URL never needs it
  const { Redis: RedisClass } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
  const client = new RedisClass(url, { ...options, connectionName: `ncm-${purpose}-${process.pid}` })
  // Without a listener an unreachable Redis is an unhandled 'error' event; reachability is reported by the probe.
  client.on('error', () => undefined)
  return client
}

export interface RedisProbe {
  url: string
  reachable: boolean
  /** Round trip of one PING (ms); null when it did not answer. */
  latency_ms: number | null
  /** redis_version from INFO server; null when unreachable. */
  version: string | null
  error: string | null
}

/** PING with its latency and the server's version, measured now. Never throws. */
export async function probeRedis(client: Redis, url: string): Promise<RedisProbe> {
  const shown = redisDisplayUrl(url)
  const started = performance.now()
  try {
    await client.ping()
    const latency = Math.round((performance.now() - started) * 1000) / 1000
    const info = await client.info('server')
    const version = /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? null
    return { url: shown, reachable: true, latency_ms: latency, version, error: null }
  } catch (err) {
    return { url: shown, reachable: false, latency_ms: null, version: null, error: (err as Error).message }
  }
}

/** Resolves true once the client is connected, false when it reports an error or `ms` pass first. */
export function readyWithin(client: Redis, ms: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true)
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer)
      client.off('ready', onReady)
      client.off('error', onError)
      resolve(ok)
    }
    const onReady = () => done(true)
    // A refused connection will not become ready within the wait: say so at once.
    const onError = () => done(false)
    const timer = setTimeout(() => done(false), ms)
    client.once('ready', onReady)
    client.once('error', onError)
  })
}

/** Null when Redis at url answers a PING now, else why not; for tests and benches that need it. Never throws. */
export async function redisUnreachable(url: string, waitMs = 2000): Promise<string | null> {
  const client = openRedis(url, 'commands')
  try {
    // The client sends nothing before it is connected (no offline queue): give it waitMs.
    await readyWithin(client, waitMs)
    const probe = await probeRedis(client, url)
    return probe.reachable ? null : `Redis at ${probe.url} is unreachable (${probe.error})`
  } finally {
    client.disconnect()
  }
}

/** Deletes every key under prefix (SCAN, never KEYS: a shared Redis may be large); returns how many. */
export async function deletePrefix(client: Redis, prefix: string): Promise<number> {
  let deleted = 0
  let cursor = '0'
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500)
    cursor = next
    if (keys.length) deleted += await client.unlink(...keys)
  } while (cursor !== '0')
  return deleted
}
