// Forward-only migrations: NNNN-name.sql files of the database's dialect applied in order, each inside a transaction,
// recorded with a checksum. On PostgreSQL the whole run holds an advisory lock, so replicas starting together migrate
// once: the others wait, then find every migration recorded.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from '../version.js'
import type { Dialect, Sql } from './sql.js'

/** Kept in src/ for both source and compiled runs (tsc does not copy .sql files); one folder per dialect. */
export const MIGRATIONS_ROOT = join(REPO_ROOT, 'src', 'store', 'migrations')
export const migrationsDirOf = (dialect: Dialect): string => join(MIGRATIONS_ROOT, dialect)

export interface MigrationRecord {
  name: string
  applied_at: string
  checksum: string
}

interface MigrationFile {
  name: string
  sql: string
  checksum: string
}

/** What the migrator works on: one connection, and how a migration file (statements without parameters) runs on it. */
export interface MigrationTarget {
  /** Statements on one connection, held for the whole run (a PostgreSQL session lock belongs to it). */
  readonly sql: Sql
  /** Runs a migration file's statements inside tx, a transaction of `sql`. */
  exec(tx: Sql, script: string): Promise<void>
}

/** pg_advisory_lock key of the migration run: one fixed number, the same in every replica. */
export const MIGRATION_LOCK_KEY = 0x4e434d01

const MIGRATION_NAME = /^(\d{4})-[a-z0-9-]+\.sql$/

export function listMigrations(dir: string): MigrationFile[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()
  const seen = new Set<string>()
  return files.map((name) => {
    const match = MIGRATION_NAME.exec(name)
    if (!match) throw new Error(`migration file ${name} does not match NNNN-name.sql`)
    if (seen.has(match[1]!)) throw new Error(`two migrations share the number ${match[1]}`)
    seen.add(match[1]!)
    const sql = readFileSync(join(dir, name), 'utf8')
    return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') }
  })
}

export const APPLIED_MIGRATIONS = 'SELECT name, applied_at, checksum FROM schema_migrations ORDER BY name'

/** Applies the migrations of dir not yet recorded; answers their names. */
export async function applyMigrations(target: MigrationTarget, dir: string): Promise<string[]> {
  const { sql } = target
  const files = listMigrations(dir)
  const postgres = sql.dialect === 'postgres'
  if (postgres) await sql.get(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
  try {
    await sql.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name TEXT PRIMARY KEY,
      applied_at TEXT NOT NULL,
      checksum TEXT NOT NULL
    )`)
    const applied = new Map((await sql.all<MigrationRecord>(APPLIED_MIGRATIONS)).map((m) => [m.name, m]))
    const newlyApplied: string[] = []
    for (const migration of files) {
      const done = applied.get(migration.name)
      if (done) {
        if (done.checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was changed after it was applied (checksum differs)`)
        }
        continue
      }
      await sql.transaction(async (tx) => {
        await target.exec(tx, migration.sql)
        await tx.run('INSERT INTO schema_migrations (name, applied_at, checksum) VALUES (?, ?, ?)',
          [migration.name, new Date().toISOString(), migration.checksum])
      })
      newlyApplied.push(migration.name)
    }
    return newlyApplied
  } finally {
    if (postgres) await sql.get(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`)
  }
}

/** Migration files of dir not among the applied. */
export function pendingMigrations(dir: string, applied: readonly MigrationRecord[]): string[] {
  const done = new Set(applied.map((m) => m.name))
  return listMigrations(dir).map((m) => m.name).filter((name) => !done.has(name))
}
