// What the rest of the host holds of its database, whichever backend it is (SQLite file or PostgreSQL pool).
import type Database from 'better-sqlite3'
import type { MigrationRecord } from './migrate.js'
import type { CheckPragma } from './sqlite-apart.js'
import type { Dialect, Sql } from './sql.js'
import type { StorageState } from './storage.js'
import { coalesce } from '../sched/coalesce.js'

export type Db = Database.Database

/** Connections of a PostgreSQL pool. */
export interface PoolUse {
  /** Open connections, busy or idle. */
  total: number
  idle: number
  /** Statements waiting for a connection. */
  waiting: number
  max: number
}

export interface Store {
  readonly backend: Dialect
  /** Every repository's way in (src/store/sql.ts). */
  readonly sql: Sql
  /** The SQLite connection, for what only SQLite has (tests that break the file, the CLI's backups); null on PostgreSQL. */
  readonly sqlite: Db | null
  /** SQLite: absolute path of the file, or ':memory:'. PostgreSQL: scheme://host:port/database, no credentials. */
  readonly path: string
  /** The folder of the migration files this store applies. */
  readonly migrationsDir: string
  /** Migrations recorded in schema_migrations, oldest first. */
  applied(): Promise<MigrationRecord[]>
  /** Migration files not yet applied (empty after a normal start). */
  pending(): Promise<string[]>
  /**
   * One round trip (`SELECT 1`); answers its latency in ms, rejects when the database cannot answer. Calls while one
   * is in flight share it (a burst of health checks sends one statement); a call after it settled sends a new one.
   */
  ping(): Promise<number>
  /**
   * SQLite: a whole-database check pragma's rows; for a file on a worker thread with its own read-only connection (the
   * cost grows with the database), for ':memory:' on the connection. Null on PostgreSQL.
   */
  readonly checkPragma: ((pragma: CheckPragma) => Promise<Record<string, unknown>[]>) | null
  /** The database's version, read once: SQLite's library version, or PostgreSQL's server_version. */
  version(): Promise<string>
  /** The PostgreSQL pool's connections; null on SQLite (one connection). */
  poolUse(): PoolUse | null
  /** SQLite file and WAL sizes in bytes; null for an in-memory database and on PostgreSQL. */
  fileSizes(): { file: number | null; wal: number | null }
  /** Whether there is room to write (free space, and writes refused for want of it): health reports it. */
  storage(): StorageState
  close(): Promise<void>
}

/** `SELECT 1` through sql, timed; concurrent calls share the one in flight (see Store.ping). */
export const pingerOf = (sql: Pick<Sql, 'get'>): (() => Promise<number>) => coalesce(() => pingThrough(sql))

async function pingThrough(sql: Pick<Sql, 'get'>): Promise<number> {
  const started = performance.now()
  const answer = await sql.get<{ one: number }>('SELECT 1 AS one')
  if (Number(answer?.one) !== 1) throw new Error('SELECT 1 gave an unexpected answer')
  return Math.round((performance.now() - started) * 1000) / 1000
}
