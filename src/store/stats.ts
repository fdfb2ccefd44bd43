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
  if (store.sqlite) {
    const db = introspect(store.sqlite)
    const pageSize = Number(db.pragma('page_size'))
    const pageCount = Number(db.pragma('page_count'))
    const sizes = store.fileSizes()
    const version = db.sqliteVersion()
    return {
      backend: 'sqlite',
      server_version: version,
      sqlite_version: version,
      journal_mode: String(db.pragma('journal_mode')),
      in_memory: store.path === ':memory:',
      page_size: pageSize,
      page_count: pageCount,
      freelist_count: Number(db.pragma('freelist_count')),
      database_bytes: pageSize * pageCount,
      file_bytes: sizes.file,
      wal_bytes: sizes.wal,
      tables: db.tables().map((t) => ({ ...t, bytes: null })),
      migrations,
    }
  }
  const { sql } = store
  const relations = await sql.all<{ name: string; bytes: number }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema() ORDER BY c.relname`)
  const tables = []
  // Names come from pg_class itself, so quoting them is safe.
  for (const { name, bytes } of relations) {
    const counted = await sql.get<{ n: number }>(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`)
    tables.push({ name, rows: counted!.n, bytes })
  }
  const size = await sql.get<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes')
  return {
    backend: 'postgres',
    server_version: await store.version(),
    sqlite_version: null,
    journal_mode: null,
    in_memory: false,
    page_size: null,
    page_count: null,
    freelist_count: null,
    database_bytes: size!.bytes,
    file_bytes: null,
    wal_bytes: null,
    tables,
    migrations,
  }
}
