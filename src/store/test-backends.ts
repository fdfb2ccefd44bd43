// The same repository tests on both databases: TEST_BACKENDS lists SQLite and, when it answers, PostgreSQL (skipped
// with the reason printed otherwise; under CI=true unreachable is a failure). Every store handed out starts empty:
// SQLite in memory; PostgreSQL one database per testStores() (a test file), migrated once, its tables emptied for
// each new store (creating a database costs about a second on a busy machine, emptying it a few ms).
import { openStore, type Store } from './index.js'
import { openPostgresStore } from './postgres-store.js'
import type { Dialect } from './sql.js'
import { createTestDatabase, postgresUnavailable, type TestDatabase } from './test-postgres.js'

export const TEST_BACKENDS: readonly Dialect[] = (await postgresUnavailable()) === null ? ['sqlite', 'postgres'] : ['sqlite']

export interface TestStores {
  /** A migrated store of that backend with no rows. */
  open(backend: Dialect): Promise<Store>
  /** Closes every store opened and drops the PostgreSQL database. */
  cleanup(): Promise<void>
}

export function testStores(): TestStores {
  const opened: Store[] = []
  let database: Promise<TestDatabase> | undefined
  return {
    async open(backend) {
      const store = backend === 'sqlite'
        ? await openStore({ path: ':memory:' })
        : await openPostgresStore({ url: (await (database ??= createTestDatabase())).url, poolMax: 4, connectTimeoutMs: 5000 })
      opened.push(store)
      if (backend === 'postgres') await emptyTables(store)
      return store
    },
    async cleanup() {
      for (const store of opened.splice(0)) await store.close()
      if (database) await (await database).drop()
      database = undefined
    },
  }
}

/** Every table but the migration record, emptied, its identities back at 1. */
async function emptyTables(store: Store): Promise<void> {
  const tables = await store.sql.all<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`)
  if (tables.length) await store.sql.run(`TRUNCATE ${tables.map((t) => `"${t.name}"`).join(', ')} RESTART IDENTITY CASCADE`)
}
