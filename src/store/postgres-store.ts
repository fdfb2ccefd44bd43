// The PostgreSQL store: a pool (DATABASE_URL), migrations applied at start on one held connection under an advisory
// lock, so replicas starting together migrate once.
import { createStorageWatch } from './storage.js'
import { databaseLocation } from '../http/redact.js'
import { APPLIED_MIGRATIONS, applyMigrations, migrationsDirOf, pendingMigrations, type MigrationRecord } from './migrate.js'
import { createPostgresPool, createPostgresSql, type PostgresSql } from './postgres-sql.js'
import { pingerOf, type Store } from './store.js'

export interface PostgresStoreOptions {
  url: string
  poolMax: number
  connectTimeoutMs: number
  migrationsDir?: string
}

/** Applies the pending PostgreSQL migrations of dir; answers their names. */
export function migratePostgres(sql: PostgresSql, dir = migrationsDirOf('postgres')): Promise<string[]> {
  // Without parameters a statement goes by the simple protocol, so a migration file's several statements run as one.
  return sql.session((session) => applyMigrations({ sql: session, exec: async (tx, script) => { await tx.run(script) } }, dir))
}

export async function openPostgresStore({ url, poolMax, connectTimeoutMs, migrationsDir = migrationsDirOf('postgres') }: PostgresStoreOptions): Promise<Store> {
  const location = databaseLocation(url)
  const pool = createPostgresPool({ connectionString: url, max: poolMax, connectionTimeoutMs: connectTimeoutMs })
  // The server's disk is seen only through the statements it refuses for want of space.
  const watch = createStorageWatch(null)
  const sql = createPostgresSql(pool, { onError: watch.note })
  try {
    await migratePostgres(sql, migrationsDir)
  } catch (error) {
    await pool.end().catch(() => {})
    // The location, never the URL itself: it holds the password.
    throw new Error(`PostgreSQL at ${location}: ${(error as Error).message}`, { cause: error })
  }

  let version: string | undefined
  let closed = false
  const applied = () => sql.all<MigrationRecord>(APPLIED_MIGRATIONS)
  return {
    backend: 'postgres',
    sql,
    storage: watch.state,
    sqlite: null,
    path: location,
    migrationsDir,
    applied,
    pending: async () => pendingMigrations(migrationsDir, await applied()),
    ping: pingerOf(sql),
    version: async () => (version ??= (await sql.get<{ v: string }>(`SELECT current_setting('server_version') AS v`))!.v),
    checkPragma: null,
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolMax }),
    fileSizes: () => ({ file: null, wal: null }),
    close: async () => {
      if (closed) return
      closed = true
      await pool.end()
    },
  }
}
