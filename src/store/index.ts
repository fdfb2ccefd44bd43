// The only module that opens SQLite: WAL, foreign keys, busy timeout, numbered .sql migrations (SPEC §1.7).
import Database from 'better-sqlite3'
import { mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { APPLIED_MIGRATIONS, applyMigrations, migrationsDirOf, pendingMigrations, type MigrationRecord } from './migrate.js'
import type { Sql } from './sql.js'
import { createSqliteSql } from './sqlite-sql.js'

export type Db = Database.Database
export type Statement<P extends unknown[] | object = unknown[], R = unknown> = Database.Statement<P, R>

export interface Store {
  /** Every repository's way in (src/store/sql.ts). */
  readonly sql: Sql
  /** The SQLite handle, while repositories move to `sql` (issue #18). */
  readonly db: Db
  /** Absolute path of the file, or ':memory:'. */
  readonly path: string
  /** The folder of the migration files this store applies. */
  readonly migrationsDir: string
  /** Migrations recorded in schema_migrations, oldest first. */
  applied(): MigrationRecord[]
  /** Migration files not yet applied (empty after a normal start). */
  pending(): string[]
  /** Runs fn inside one transaction (synchronous: never await inside). */
  transaction<T>(fn: () => T): T
  /** One round trip through the database (`SELECT 1`, prepared once); throws when it cannot answer. */
  ping(): void
  /** File and WAL sizes in bytes; null for an in-memory database. */
  fileSizes(): { file: number | null; wal: number | null }
  close(): void
}

export interface OpenStoreOptions {
  path: string
  migrationsDir?: string
}

export async function openStore({ path, migrationsDir = migrationsDirOf('sqlite') }: OpenStoreOptions): Promise<Store> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  // WAL with synchronous=NORMAL is durable against process crashes (the case we test with SIGKILL);
  // FULL would add an fsync per commit for power-loss safety at a large write cost.
  db.pragma('synchronous = NORMAL')
  const sql = createSqliteSql(db)
  try {
    // One connection: the migrator's statements and a migration file's script run on it, the script inside the transaction.
    await applyMigrations({ sql, exec: async (_tx, script) => { db.exec(script) } }, migrationsDir)
  } catch (error) {
    db.close()
    throw error
  }

  const appliedStmt = db.prepare<[], MigrationRecord>(APPLIED_MIGRATIONS)
  const pingStmt = db.prepare<[], { one: number }>('SELECT 1 AS one')
  return {
    sql,
    db,
    path,
    migrationsDir,
    ping: () => {
      if (pingStmt.get()?.one !== 1) throw new Error('SELECT 1 gave an unexpected answer')
    },
    applied: () => appliedStmt.all(),
    pending: () => pendingMigrations(migrationsDir, appliedStmt.all()),
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    fileSizes: () => ({ file: sizeOf(path), wal: sizeOf(`${path}-wal`) }),
    close: () => {
      if (db.open) db.close()
    },
  }
}

function sizeOf(file: string): number | null {
  if (file.startsWith(':memory:')) return null
  try {
    return statSync(file).size
  } catch {
    return null
  }
}
