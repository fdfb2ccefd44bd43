// Keyset pages in SQL (the store side of src/paging.ts): the rows strictly after a sort-key position, in one order,
// limit + 1 of them so the caller can tell whether another page follows. Two statement texts, built once.
import type { Db } from './index.js'
import type { Sql } from './sql.js'

export interface KeysetSpec {
  /** `SELECT … FROM … [JOIN …]`, without WHERE or ORDER BY. */
  select: string
  /** Conditions ANDed together; optional filters read as '(@kind IS NULL OR kind = @kind)'. */
  where?: readonly string[]
  /** Sort key columns, most significant first; together they must be unique (end with the primary key). */
  key: readonly string[]
  order: 'asc' | 'desc'
}

type After = readonly (string | number)[] | null

/** Reads one page: every named parameter of `where` must be given (null for an absent filter). */
export type KeysetQuery<Row> = (params: Record<string, unknown>, after: After, limit: number) => Promise<Row[]>

export function keysetQuery<Row>(sql: Sql, spec: KeysetSpec): KeysetQuery<Row> {
  const { first, next, bind } = keysetStatements(spec)
  return (params, after, limit) => sql.all<Row>(after ? next : first, bind(params, after, limit))
}

/** The same pages over the synchronous SQLite handle, for the trading tables until they move to Sql (#18). */
export function keysetQueryDb<Row>(db: Db, spec: KeysetSpec): (params: Record<string, unknown>, after: After, limit: number) => Row[] {
  const { first, next, bind } = keysetStatements(spec)
  const [firstStatement, nextStatement] = [db.prepare(first), db.prepare(next)]
  return (params, after, limit) => (after ? nextStatement : firstStatement).all(bind(params, after, limit)) as Row[]
}

/** The two statement texts (first page, page after a position) and the named parameters of one page. */
function keysetStatements(spec: KeysetSpec) {
  const cmp = spec.order === 'desc' ? '<' : '>'
  const dir = spec.order === 'desc' ? 'DESC' : 'ASC'
  const keyParams = spec.key.map((_, i) => `@k${i}`)
  // A row value comparison is lexicographic and still uses an index on the key columns (SQLite and PostgreSQL).
  const afterKey = spec.key.length === 1
    ? `${spec.key[0]} ${cmp} @k0`
    : `(${spec.key.join(', ')}) ${cmp} (${keyParams.join(', ')})`
  const orderBy = spec.key.map((column) => `${column} ${dir}`).join(', ')
  const text = (conditions: readonly string[]) =>
    `${spec.select}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT @limit`
  const where = spec.where ?? []
  return {
    first: text(where),
    next: text([...where, afterKey]),
    bind(params: Record<string, unknown>, after: After, limit: number): Record<string, unknown> {
      const keys = after ? Object.fromEntries(after.map((value, i) => [`k${i}`, value])) : {}
      return { ...params, ...keys, limit: limit + 1 }
    },
  }
}
