// The one way repositories talk to a database, whichever it is: async statements with `?` or `@name` parameters, and
// transactions that the database (not an in-process lock) makes correct. SQLite (better-sqlite3) and PostgreSQL (pg)
// implement it; a repository is written once against it.

export type Dialect = 'sqlite' | 'postgres'

/** Positional (`?`) or named (`@name`) parameters; never both in one statement. */
export type SqlParams = readonly unknown[] | Readonly<Record<string, unknown>>

export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  changes: number
}

/**
 * Statements are written in the dialect both databases share: `INSERT … ON CONFLICT … DO NOTHING`, `RETURNING id`
 * instead of last-insert ids, snake_case aliases (PostgreSQL folds unquoted names to lower case), no boolean results
 * (compare in the repository), TEXT times in ISO 8601. What truly differs is branched on `dialect`.
 */
export interface Sql {
  readonly dialect: Dialect
  all<R>(text: string, params?: SqlParams): Promise<R[]>
  /**
   * The rows as arrays of their column values in select order, no object per row: for reads of many rows (a dataset's
   * bars), where building objects cost more than SQLite reading them.
   */
  values(text: string, params?: SqlParams): Promise<unknown[][]>
  /** The first row, or undefined. */
  get<R>(text: string, params?: SqlParams): Promise<R | undefined>
  run(text: string, params?: SqlParams): Promise<SqlRunResult>
  /**
   * Runs fn in one transaction on one connection and commits, or rolls back when fn throws. On PostgreSQL the
   * transaction is SERIALIZABLE and fn is run again after a serialization failure or deadlock, so fn must have no
   * effects outside the database and must not wait on anything but `tx` (no mill, no network): on SQLite every other
   * statement of the process waits while a transaction is open.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>
}

export interface TransactionOptions {
  /**
   * Transactions naming the same lock run one at a time across every process on the database. PostgreSQL holds a
   * session advisory lock on the transaction's connection from before BEGIN to after COMMIT, so the serializable
   * snapshot is taken once the lock is held and a hot row (one paper account's cash) is not fought over by retries.
   * SQLite needs nothing more: BEGIN IMMEDIATE already lets one writer in at a time.
   */
  lock?: string
}
