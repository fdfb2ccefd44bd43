// What the database holds and how big it is, for /api/v11/db/stats: SQLite's pages, file and WAL, or PostgreSQL's
// relation sizes; row counts per table on both (exact: count(*) of each table).
import { introspect } from './introspect.js'
import type { Store } from './store.js'

export interface DatabaseStats {
  backend: Store['backend']
  server_version: string
  sqlite_version: string | null
  journal_mode: string | null
  in_memory: boolean
  page_size: number | null
  page_count: number | null
  freelist_count: number | null
  database_bytes: number
  file_bytes: number | null
  wal_bytes: number | null
  tables: Array<{ name: string; rows: number; bytes: number | null }>
  migrations: Array<{ name: string; applied_at: string }>
}

export async function databaseStats(store: Store): Promise<DatabaseStats> {
  const migrations = (await store.applied()).map((m) => ({ name: m.name, applied_at: m.applied_at }))
  const db = introspect(store.sql)
  const [serverVersion, databaseBytes, tables] = await Promise.all([store.version(), db.databaseBytes(), db.tables()])
  const common = { server_version: serverVersion, database_bytes: databaseBytes, tables, migrations }
  if (db.dialect === 'sqlite') {
    const sizes = store.fileSizes()
    return {
      backend: 'sqlite',
      ...common,
      sqlite_version: serverVersion,
      journal_mode: String(await db.pragma('journal_mode')),
      in_memory: store.path === ':memory:',
      page_size: Number(await db.pragma('page_size')),
      page_count: Number(await db.pragma('page_count')),
      freelist_count: Number(await db.pragma('freelist_count')),
      file_bytes: sizes.file,
      wal_bytes: sizes.wal,
    }
  }
  return {
    backend: 'postgres',
    ...common,
    sqlite_version: null,
    journal_mode: null,
    in_memory: false,
    page_size: null,
    page_count: null,
    freelist_count: null,
    file_bytes: null,
    wal_bytes: null,
  }
}
