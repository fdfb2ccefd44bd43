// The SQLite store: one file (or ':memory:'), WAL, foreign keys, busy timeout, numbered .sql migrations (SPEC §1.7).
import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { APPLIED_MIGRATIONS, applyMigrations, migrationsDirOf, pendingMigrations, type MigrationRecord } from './migrate.js'
import { pragmaApart } from './sqlite-apart.js'
import { checkpointsOf, fileBytes, type Checkpoints } from './sqlite-checkpoint.js'
import { createSqliteSql } from './sqlite-sql.js'
import { createStorageWatch } from './storage.js'
import { pingerOf, type Store } from './store.js'

export interface SqliteStoreOptions {
  path: string
  migrationsDir?: string
}

export async function openSqliteStore({ path, migrationsDir = migrationsDirOf('sqlite') }: SqliteStoreOptions): Promise<Store> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  // WAL with synchronous=NORMAL is durable against process crashes (the case we test with SIGKILL);
  // FULL would add an fsync per commit for power-loss safety at a large write cost.
  db.pragma('synchronous = NORMAL')
  const watch = createStorageWatch(path)
  const sql = createSqliteSql(db, { onError: watch.note, beforeWrite: watch.refuseWriteWhenFull })
  try {
    // One connection: the migrator's statements and a migration file's script run on it, the script inside the transaction.
    await applyMigrations({ sql, exec: async (_tx, script) => { db.exec(script) } }, migrationsDir)
  } catch (error) {
    db.close()
    throw error
  }

  // A file's WAL is checkpointed on a worker thread, not inside whichever COMMIT crosses SQLite's threshold (sqlite-apart.ts).
  let checkpoints: Checkpoints | null = null
  if (path !== ':memory:') {
    db.pragma('wal_autocheckpoint = 0')
    checkpoints = checkpointsOf(path, undefined, undefined, watch.note)
  }

  const applied = () => sql.all<MigrationRecord>(APPLIED_MIGRATIONS)
  // Health's probe and the version read no table, so they run on the connection at once, even inside an open
  // transaction: behind it (sqlite-sql.ts queues every other statement) health would wait out a whole import, which
  // writes its bars in one transaction with turns of the loop between batches.
  const { unqueued } = sql
  // The library linked into this process: it cannot change while the process runs.
  let version: string | undefined
  return {
    backend: 'sqlite',
    sql,
    sqlite: db,
    path,
    migrationsDir,
    applied,
    pending: async () => pendingMigrations(migrationsDir, await applied()),
    ping: pingerOf(unqueued),
    checkPragma: (pragma) => (path === ':memory:' ? sql.all<Record<string, unknown>>(`PRAGMA ${pragma}`) : pragmaApart(path, pragma)),
    version: async () => (version ??= (await unqueued.get<{ v: string }>('SELECT sqlite_version() AS v'))!.v),
    poolUse: () => null,
    fileSizes: () => ({ file: sizeOf(path), wal: sizeOf(`${path}-wal`) }),
    storage: watch.state,
    close: async () => {
      // A checkpoint under way is let finish (or stopped) first: a worker thread still writing the file as the process
      // exits aborted it (exit 134) when the disk was full.
      await checkpoints?.stop()
      if (db.open) db.close()
    },
  }
}

const sizeOf = (file: string): number | null => (file.startsWith(':memory:') ? null : fileBytes(file))
