// What a database holds, read one way everywhere: its tables with row counts, and its pragmas. Statements are
// prepared once per database (a table's count once per table), never per request.
import type { Db, Statement } from './index.js'
import { perDatabase } from './repository.js'

export interface Introspection {
  /** User tables by name with their row counts. */
  tables(): Array<{ name: string; rows: number }>
  /** Rows of one table, or null when the database has no such table. */
  rowCount(table: string): number | null
  /** A pragma's single value (page_size, page_count, freelist_count, journal_mode, …). */
  pragma(name: string): unknown
  sqliteVersion(): string
}

export const introspect = perDatabase((db: Db): Introspection => {
  const tableNames = db.prepare<[], { name: string }>(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  )
  const version = db.prepare<[], { v: string }>('SELECT sqlite_version() AS v')
  const counters = new Map<string, Statement<[], { n: number }>>()
  const names = () => tableNames.all().map((t) => t.name)
  /** Names come from sqlite_schema itself, so quoting them is safe. */
  const countOf = (name: string): number => {
    let counter = counters.get(name)
    if (!counter) {
      counter = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`)
      counters.set(name, counter)
    }
    return counter.get()!.n
  }
  return {
    tables: () => names().map((name) => ({ name, rows: countOf(name) })),
    rowCount: (table) => (names().includes(table) ? countOf(table) : null),
    pragma: (name) => db.pragma(name, { simple: true }),
    sqliteVersion: () => version.get()!.v,
  }
})
