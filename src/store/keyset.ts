// Keyset pages in SQL (the store side of src/http/paging.ts): the rows strictly after a sort-key position, in one order,
// limit + 1 of them so the caller can tell whether another page follows. Two statement texts, built once; row-value
// comparisons, which SQLite and PostgreSQL both read.
import type { Sql } from './sql.js'

export interface KeysetSpec {
  /** `SELECT … FROM … [JOIN …]`, without WHERE or ORDER BY. */
  select: string
  /**
   * Conditions ANDed together; optional filters read as '(kind = @kind OR @kind IS NULL)', the column first: PostgreSQL
   * takes a parameter's type from its first use, and '@kind IS NULL' alone gives it none.
   */
  where?: readonly string[]
  /** Sort key columns, most significant first; together they must be unique (end with the primary key). */
  key: readonly string[]
  order: 'asc' | 'desc'
}

/** Reads one page: every named parameter of `where` must be given (null for an absent filter). */
export type KeysetPages<Row> = (params: Record<string, unknown>, after: readonly (string | number)[] | null, limit: number) => Promise<Row[]>

/** The first-page and next-page statements of a spec, and the parameters of one read. */
function keysetStatements(spec: KeysetSpec) {
  const cmp = spec.order === 'desc' ? '<' : '>'
  const dir = spec.order === 'desc' ? 'DESC' : 'ASC'
  const keyParams = spec.key.map((_, i) => `@k${i}`)
  // A row value comparison is lexicographic and still uses an index on the key columns.
  const afterKey = spec.key.length === 1
    ? `${spec.key[0]} ${cmp} @k0`
    : `(${spec.key.join(', ')}) ${cmp} (${keyParams.join(', ')})`
  const orderBy = spec.key.map((column) => `${column} ${dir}`).join(', ')
  const sql = (conditions: readonly string[]) =>
    `${spec.select}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT @limit`
  const where = spec.where ?? []
  return {
    first: sql(where),
    next: sql([...where, afterKey]),
    paramsOf: (params: Record<string, unknown>, after: readonly (string | number)[], limit: number) =>
      ({ ...params, ...Object.fromEntries(after.map((value, i) => [`k${i}`, value])), limit: limit + 1 }),
  }
}

export function keysetPages<Row>(sql: Sql, spec: KeysetSpec): KeysetPages<Row> {
  const statements = keysetStatements(spec)
  return (params, after, limit) => after
    ? sql.all<Row>(statements.next, statements.paramsOf(params, after, limit))
    : sql.all<Row>(statements.first, { ...params, limit: limit + 1 })
}
