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
  let emptying: Promise<string> | undefined
  return {
    async open(backend) {
      const store = backend === 'sqlite'
        ? await openStore({ path: ':memory:' })
        : await openPostgresStore({ url: (await (database ??= createTestDatabase())).url, poolMax: 4, connectTimeoutMs: 5000 })
      opened.push(store)
      // One script per database: the tables are the migrations', the same for every store of it.
      if (backend === 'postgres') await store.sql.run(await (emptying ??= emptyingScript(store)))
      return store
    },
    async cleanup() {
      for (const store of opened.splice(0)) await store.close()
      if (database) await (await database).drop()
      database = undefined
      emptying = undefined
    },
  }
}

/**
 * The statements that empty every table but the migration record, children before the tables they reference, and set
 * identities back to 1. DELETE, not TRUNCATE: on the few rows of a test it takes milliseconds where TRUNCATE's new
 * files take most of a second.
 */
async function emptyingScript(store: Store): Promise<string> {
  const tables = (await store.sql.all<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`)).map((t) => t.name)
  const references = await store.sql.all<{ child: string; parent: string }>(
    `SELECT cl.relname AS child, pa.relname AS parent FROM pg_constraint c
     JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class pa ON pa.oid = c.confrelid
     WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace AND c.conrelid <> c.confrelid`)
  const identities = await store.sql.all<{ t: string; c: string }>(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'`)
  const order: string[] = []
  const left = new Set(tables)
  while (left.size) {
    // A table goes once no table still to be emptied references it.
    const next = [...left].filter((t) => !references.some((r) => r.parent === t && left.has(r.child)))
    if (!next.length) throw new Error(`foreign keys form a cycle among ${[...left].join(', ')}`)
    for (const t of next) left.delete(t)
    order.push(...next)
  }
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
  return [
    ...order.map((t) => `DELETE FROM ${quoted(t)};`),
    ...identities.map(({ t, c }) => `SELECT setval(pg_get_serial_sequence('${quoted(t)}', '${c}'), 1, false);`),
  ].join('\n')
}
