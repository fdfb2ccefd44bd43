// What a database holds, read one way on either backend: its tables with exact row counts (and bytes where the
// database tells) and its size; SQLite's pragmas only on SQLite. One instance per database. (The server's version is
// Store.version().)
import { perDatabase } from './repository.js'
import type { Dialect, Sql } from './sql.js'
import { countRows } from './count.js'

export interface TableFacts {
  name: string
  /** Exact: count(*) of the table (on SQLite in slices that let the loop turn: count.ts). */
  rows: number
  /** Table with its indexes and TOAST (PostgreSQL); null on SQLite, whose size is the file's (pages). */
  bytes: number | null
}

export interface Introspection {
  readonly dialect: Dialect
  /** The application's tables by name (SQLite: every user table; PostgreSQL: the current schema). */
  tables(): Promise<TableFacts[]>
  /** Rows of one table, or null when the database has no such table. */
  rowCount(table: string): Promise<number | null>
  /** Bytes the whole database takes (SQLite: page_size × page_count; PostgreSQL: pg_database_size). */
  databaseBytes(): Promise<number>
  /** A SQLite pragma's single value (page_size, page_count, freelist_count, journal_mode, …); throws on PostgreSQL. */
  pragma(name: string): Promise<unknown>
}

export const introspect = perDatabase((sql: Sql): Introspection =>
  sql.dialect === 'sqlite' ? sqliteIntrospection(sql) : postgresIntrospection(sql))

function counting(sql: Sql, names: () => Promise<string[]>) {
  const countOf = (name: string) => countRows(sql, name)
  return {
    countOf,
    rowCount: async (table: string) => ((await names()).includes(table) ? countOf(table) : null),
  }
}

function sqliteIntrospection(sql: Sql): Introspection {
  const names = async () => (await sql.all<{ name: string }>(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  )).map((t) => t.name)
  const { countOf, rowCount } = counting(sql, names)
  const pragma = async (name: string): Promise<unknown> => {
    if (!/^[a-z_]+$/.test(name)) throw new Error(`not a pragma name: ${name}`)
    const row = await sql.get<Record<string, unknown>>(`PRAGMA ${name}`)
    return row === undefined ? undefined : Object.values(row)[0]
  }
  return {
    dialect: 'sqlite',
    tables: async () => Promise.all((await names()).map(async (name) => ({ name, rows: await countOf(name), bytes: null }))),
    rowCount,
    databaseBytes: async () => Number(await pragma('page_size')) * Number(await pragma('page_count')),
    pragma,
  }
}

function postgresIntrospection(sql: Sql): Introspection {
  const relations = () => sql.all<{ name: string; bytes: number }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema() ORDER BY c.relname`,
  )
  const { countOf, rowCount } = counting(sql, async () => (await relations()).map((r) => r.name))
  return {
    dialect: 'postgres',
    async tables() {
      const found = await relations()
      return Promise.all(found.map(async ({ name, bytes }) => ({ name, rows: await countOf(name), bytes: Number(bytes) })))
    },
    rowCount,
    databaseBytes: async () => Number((await sql.get<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes'))!.bytes),
    pragma: async (name) => {
      throw new Error(`PRAGMA ${name} is SQLite's; this database is PostgreSQL`)
    },
  }
}
