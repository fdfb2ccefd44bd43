// The store's state as every health and readiness answer reports it: which database, whether it answers now and how
// fast, its version, and (PostgreSQL) the pool's connections.
import { basename } from 'node:path'
import { z } from 'zod'
import type { Store } from './store.js'
import { storageStateSchema } from './storage.js'

export const storeStatusSchema = z.object({
  backend: z.enum(['sqlite', 'postgres']),
  location: z.string().describe('SQLite: the file (its name, or relative to DATA_DIR in the readiness report) or :memory:; PostgreSQL: scheme://host:port/database, no credentials'),
  ok: z.boolean().describe('SELECT 1 answered just now'),
  latency_ms: z.number().nullable().describe('round trip of SELECT 1; null when it failed'),
  version: z.string().nullable().describe("SQLite's library version or PostgreSQL's server_version; null when unread"),
  pool: z.object({
    total: z.number().int(),
    idle: z.number().int(),
    waiting: z.number().int().describe('statements waiting for a connection'),
    max: z.number().int(),
  }).nullable().describe('PostgreSQL connection pool of this process; null on SQLite (one connection)'),
  error: z.string().nullable(),
  storage: storageStateSchema.describe('room to write: `full` after a write refused for want of space (or almost none left), `low` under 64 MiB or 5%'),
})
export type StoreStatus = z.infer<typeof storeStatusSchema>

/** Where the store is, as a public answer may say it: the SQLite file's name (not its directories), PostgreSQL's server. */
export const publicLocation = (store: Store): string => (store.backend === 'sqlite' ? basename(store.path) : store.path)

/** Pings the store and reads its version; never rejects (a failure is in `ok` and `error`). `location` as shown. */
export async function storeStatus(store: Store, location: string = publicLocationOf(store)): Promise<StoreStatus> {
  const { backend } = store
  const pool = store.poolUse()
  try {
    const latency = await store.ping()
    return { backend, location, pool, ok: true, latency_ms: latency, version: await store.version(), error: null, storage: store.storage() }
  } catch (err) {
    return { backend, location, pool, ok: false, latency_ms: null, version: null, error: (err as Error).message, storage: store.storage() }
  }
}

/** publicLocation worked out once per store: every health answer states it. */
const locations = new WeakMap<Store, string>()
function publicLocationOf(store: Store): string {
  let location = locations.get(store)
  if (location === undefined) locations.set(store, (location = publicLocation(store)))
  return location
}
