// Forward-only migrations: NNNN-name.sql files applied in order, each inside a transaction, recorded with a checksum.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { REPO_ROOT } from '../version.js'

/** Kept in src/ for both source and compiled runs (tsc does not copy .sql files). */
export const MIGRATIONS_DIR = join(REPO_ROOT, 'src', 'store', 'migrations')

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

export function applyMigrations(db: Database.Database, dir: string): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL,
    checksum TEXT NOT NULL
  )`)
  const applied = new Map(
    db.prepare<[], MigrationRecord>('SELECT name, applied_at, checksum FROM schema_migrations').all()
      .map((m) => [m.name, m]),
  )
  const record = db.prepare('INSERT INTO schema_migrations (name, applied_at, checksum) VALUES (?, ?, ?)')
  const newlyApplied: string[] = []
  for (const migration of listMigrations(dir)) {
    const done = applied.get(migration.name)
    if (done) {
      if (done.checksum !== migration.checksum) {
        throw new Error(`migration ${migration.name} was changed after it was applied (checksum differs)`)
      }
      continue
    }
    db.transaction(() => {
      db.exec(migration.sql)
      record.run(migration.name, new Date().toISOString(), migration.checksum)
    })()
    newlyApplied.push(migration.name)
  }
  return newlyApplied
}
