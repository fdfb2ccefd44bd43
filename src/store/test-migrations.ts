// For tests of a migration that moves data: a database migrated up to (not including) one migration, written to by the
// test, then migrated to the end, on either dialect.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from './index.js'
import { listMigrations, migrationsDirOf } from './migrate.js'
import { createPostgresPool, createPostgresSql, type PostgresSql } from './postgres-sql.js'
import { migratePostgres } from './postgres-store.js'
import type { Dialect, Sql } from './sql.js'
import { createTestDatabase, type TestDatabase } from './test-postgres.js'

export type Cleanup = () => Promise<void> | void

/** A folder with the dialect's migrations numbered before `first`, byte for byte (so their checksums match). */
function migrationsBefore(dialect: Dialect, first: string, cleanups: Cleanup[]): string {
  const dir = mkdtempSync(join(tmpdir(), `ncm-before-${first}-`))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  for (const { name } of listMigrations(migrationsDirOf(dialect))) {
    if (name < first) copyFileSync(join(migrationsDirOf(dialect), name), join(dir, name))
  }
  return dir
}

/**
 * Migrates a new database to just before migration `first` (e.g. '0008'), runs `write` on it, then migrates to the
 * end; answers the migrated database's Sql. What it opens is closed or dropped by `cleanups`, last first.
 */
export async function acrossMigration(dialect: Dialect, first: string, write: (sql: Sql) => Promise<void>, cleanups: Cleanup[]): Promise<Sql> {
  const before = migrationsBefore(dialect, first, cleanups)
  if (dialect === 'sqlite') {
    const path = join(before, 'db.sqlite')
    const old = await openStore({ path, migrationsDir: before })
    await write(old.sql)
    await old.close()
    const store = await openStore({ path })
    cleanups.push(() => store.close())
    return store.sql
  }
  const database: TestDatabase = await createTestDatabase()
  const sql: PostgresSql = createPostgresSql(createPostgresPool({ connectionString: database.url, max: 2, connectionTimeoutMs: 5000 }))
  cleanups.push(() => database.drop(), () => sql.pool.end())
  await migratePostgres(sql, before)
  await write(sql)
  await migratePostgres(sql)
  return sql
}
