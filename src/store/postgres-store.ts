// The PostgreSQL side of the store: migrations on one held connection (the advisory lock is that session's).
import { applyMigrations, migrationsDirOf } from './migrate.js'
import type { PostgresSql } from './postgres-sql.js'

/** Applies the pending PostgreSQL migrations of dir; answers their names. */
export function migratePostgres(sql: PostgresSql, dir = migrationsDirOf('postgres')): Promise<string[]> {
  // Without parameters a statement goes by the simple protocol, so a migration file's several statements run as one.
  return sql.session((session) => applyMigrations({ sql: session, exec: async (tx, script) => { await tx.run(script) } }, dir))
}
