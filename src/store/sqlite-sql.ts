// Sql over one better-sqlite3 connection. Statements are prepared once per text. SQLite runs synchronously, so a
// statement outside a transaction answers at once (an already-settled promise); while a transaction is open, other
// statements of the process wait for it to end, because they share the one connection and would otherwise land
// inside it.
import type Database from 'better-sqlite3'
import type { Sql, SqlParams, SqlRunResult } from './sql.js'
import { refuseUnstorable } from './storable.js'

type Statement = Database.Statement<unknown[], unknown>
const ADDS_ROWS = /^\s*(?:INSERT|REPLACE)\b/i

export interface SqliteSql extends Sql {
  /**
   * Runs a statement at once, even while a transaction is open (not behind it, as every other statement is): only for
   * statements that read no table (health's `SELECT 1`, the library's version), which cannot see a transaction's work.
   */
  readonly unqueued: Pick<Sql, 'get'>
}

export interface SqliteSqlOptions {
  /** Told of every error a statement meets (the store's storage watch looks for a full disk). */
  onError?: (err: unknown) => void
  /**
   * Asked before each statement that adds rows (INSERT, REPLACE), in a transaction or not; throws to refuse it. The
   * storage watch refuses them on a full filesystem here.
   */
  beforeWrite?: () => void
}

export function createSqliteSql(db: Database.Database, { onError, beforeWrite }: SqliteSqlOptions = {}): SqliteSql {
  // Statements that add rows (INSERT, REPLACE), known when prepared: asked about before each run, inside a transaction
  // too (one refused midway is rolled back whole); an UPDATE or DELETE (unlinking, marking, freeing room) still runs,
  // and meets SQLITE_FULL itself if it must.
  const addsRows = new WeakSet<Statement>()
  /** Statements prepared once per text; `raw` ones answer rows as arrays of values (better-sqlite3's raw mode). */
  const preparedOnce = (raw: boolean) => {
    const prepared = new Map<string, Statement>()
    return (text: string): Statement => {
      let found = prepared.get(text)
      if (!found) {
        found = db.prepare<unknown[], unknown>(text)
        if (raw) found.raw(true)
        if (!found.readonly && ADDS_ROWS.test(text)) addsRows.add(found)
        prepared.set(text, found)
      }
      if (beforeWrite && addsRows.has(found)) beforeWrite()
      return found
    }
  }
  const statement = preparedOnce(false)
  const rawStatement = preparedOnce(true)
  const bind = (params: SqlParams | undefined): unknown[] => {
    if (params === undefined) return []
    refuseUnstorable(params)
    return Array.isArray(params) ? (params as unknown[]) : [params]
  }

  const noted = <T>(work: () => T): T => {
    try {
      return work()
    } catch (error) {
      onError?.(error)
      throw error
    }
  }
  const direct = {
    all: <R>(text: string, params?: SqlParams) => noted(() => statement(text).all(...bind(params)) as R[]),
    values: (text: string, params?: SqlParams) => noted(() => rawStatement(text).all(...bind(params)) as unknown[][]),
    get: <R>(text: string, params?: SqlParams) => noted(() => statement(text).get(...bind(params)) as R | undefined),
    run: (text: string, params?: SqlParams): SqlRunResult => noted(() => ({ changes: statement(text).run(...bind(params)).changes })),
  }

  /** Settles when the open transaction ends; null when none is open. */
  let open: Promise<void> | null = null
  const settle = <T>(work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work())
    } catch (error) {
      return Promise.reject(error)
    }
  }
  const outside = async <T>(work: () => T): Promise<T> => {
    while (open) await open
    return work()
  }
  const call = <T>(work: () => T): Promise<T> => (open ? outside(work) : settle(work))

  // Inside a transaction statements run directly; a nested transaction is part of the outer one.
  const inTransaction: Sql = {
    dialect: 'sqlite',
    all: (text, params) => settle(() => direct.all(text, params)),
    values: (text, params) => settle(() => direct.values(text, params)),
    get: (text, params) => settle(() => direct.get(text, params)),
    run: (text, params) => settle(() => direct.run(text, params)),
    transaction: (fn) => fn(inTransaction),
  }

  return {
    dialect: 'sqlite',
    unqueued: inTransaction,
    all: (text, params) => call(() => direct.all(text, params)),
    values: (text, params) => call(() => direct.values(text, params)),
    get: (text, params) => call(() => direct.get(text, params)),
    run: (text, params) => call(() => direct.run(text, params)),
    async transaction(fn) {
      while (open) await open
      let end!: () => void
      open = new Promise<void>((resolve) => { end = resolve })
      try {
        // IMMEDIATE takes the write lock up front, so another process's writer cannot make this one fail midway.
        noted(() => db.exec('BEGIN IMMEDIATE'))
        const value = await fn(inTransaction)
        noted(() => db.exec('COMMIT'))
        return value
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK')
        throw error
      } finally {
        open = null
        end()
      }
    },
  }
}
