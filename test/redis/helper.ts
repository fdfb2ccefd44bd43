// Redis for tests: a key prefix of their own (deleted after), and a skip with a printed reason when Redis is not
// there — except under CI=true, where an unreachable Redis is a failure.
import { randomBytes } from 'node:crypto'
import { afterAll } from 'vitest'
import { deletePrefix, openRedis, readyWithin, redisUnreachable } from '../../src/redis/connection.js'

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Resolved at import (top-level await) so `describe.skipIf(!redis.available)` can read it. */
export async function redisForTests(): Promise<{ available: boolean; url: string; reason: string }> {
  const reason = await redisUnreachable(TEST_REDIS_URL)
  if (reason === null) return { available: true, url: TEST_REDIS_URL, reason: '' }
  if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`)
  console.warn(`skipping Redis tests: ${reason}`)
  return { available: false, url: TEST_REDIS_URL, reason }
}

/** How long cleanup waits for its connection; past it deletePrefix fails loudly instead of hanging the run. */
const CLEANUP_CONNECT_MS = 10_000

/** A fresh key prefix for this test file; every key under it is deleted after the file's tests. */
export function testPrefix(): string {
  const prefix = `ncm_test_${randomBytes(6).toString('hex')}:`
  afterAll(async () => {
    const client = openRedis(TEST_REDIS_URL, 'commands')
    try {
      await readyWithin(client, CLEANUP_CONNECT_MS)
      await deletePrefix(client, prefix)
    } finally {
      client.disconnect()
    }
  })
  return prefix
}

/** Polls check every 50 ms until it answers a value (not undefined; a throw counts as not yet); fails after `tries`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, tries = 600): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check().catch(() => undefined)
    if (value !== undefined) return value
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`gave up waiting: ${what}`)
}
