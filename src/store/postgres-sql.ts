// Sql over a node-postgres pool. Each statement text is rewritten to $n parameters once and then run as a named
// prepared statement (parsed once per connection). A transaction holds one pooled connection and is SERIALIZABLE: the
// database, not this process, keeps concurrent replicas correct, and fn runs again after a serialization failure.
import { createRequire } from 'node:module'
import type pg from 'pg'
import { numberPlaceholders, valuesFor, type NumberedStatement } from './placeholders.js'
import { Refusal } from '../http/refusal.js'
import type { Sql, SqlParams, SqlRunResult, TransactionOptions } from './sql.js'
import { refuseUnstorable } from './storable.js'

export interface PostgresPoolOptions {
  connectionString: string
  max: number
  connectionTimeoutMs: number
}

/** node-postgres (~0.1 s to import), loaded with the first pool: a host on SQLite never needs it. */
const loadPg = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg

/** PostgreSQL's 64-bit integers and numerics as JS numbers, like SQLite's; set on this pool only, not pg's globals. */
const INT8_OID = 20
const NUMERIC_OID = 1700
const numberTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID ? (value: string) => Number(value) : loadPg().types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
}

export function createPostgresPool({ connectionString, max, connectionTimeoutMs }: PostgresPoolOptions): pg.Pool {
  const pool = new (loadPg().Pool)({ connectionString, max, connectionTimeoutMillis: connectionTimeoutMs, types: numberTypes, application_name: 'ncm-hub' })
  // An idle connection the server closed is dropped by the pool; the next statement reports any lasting problem.
  pool.on('error', () => {})
  return pool
}

/** Serialization failure and deadlock: the transaction lost a race and may simply be run again. */
const RETRYABLE = new Set(['40001', '40P01'])
export const TRANSACTION_ATTEMPTS = 10

export interface PostgresSql extends Sql {
  readonly pool: pg.Pool
  /** Transactions run again after losing a serialization race, since this Sql was made. */
  retries(): number
  /** Runs fn with statements on one connection held for the whole of fn (a session lock stays with it). */
  session<T>(fn: (sql: Sql) => Promise<T>): Promise<T>
}

type Queryable = Pick<pg.ClientBase, 'query'>

/** Statement texts kept prepared; texts past it (statements built with varying shapes) run unnamed, parsed each time. */
export const MAX_NAMED_STATEMENTS = 1000

/** Names are unique in the process: a connection keeps its prepared statements whichever Sql prepared them. */
let statementsNamed = 0

/** `onError`: told of every error a statement meets (the store's storage watch looks for a full disk). */
export function createPostgresSql(pool: pg.Pool, { maxNamed = MAX_NAMED_STATEMENTS, onError }: { maxNamed?: number; onError?: (err: unknown) => void } = {}): PostgresSql {
  const numbered = new Map<string, NumberedStatement & { name: string }>()
  /** `arrays`: rows come as arrays of column values (pg's rowMode 'array'), not objects. */
  const query = (on: Queryable, text: string, params: SqlParams | undefined, arrays = false): Promise<pg.QueryResult> => {
    const result = send(on, text, params, arrays)
    if (onError) result.catch(onError)
    return result
  }
  const send = async (on: Queryable, text: string, params: SqlParams | undefined, arrays: boolean): Promise<pg.QueryResult> => {
    const rowMode = arrays ? { rowMode: 'array' as const } : {}
    // Without parameters the text goes as it is (simple protocol): a migration file's several statements run too.
    if (params === undefined) return arrays ? on.query({ text, ...rowMode }) : on.query(text)
    refuseUnstorable(params)
    let statement = numbered.get(text)
    if (!statement) {
      if (numbered.size >= maxNamed) {
        const unnamed = numberPlaceholders(text)
        return on.query({ text: unnamed.text, values: valuesFor(unnamed, params), ...rowMode })
      }
      statement = { ...numberPlaceholders(text), name: `ncm_${++statementsNamed}` }
      numbered.set(text, statement)
    }
    return on.query({ name: statement.name, text: statement.text, values: valuesFor(statement, params), ...rowMode })
  }

  let retries = 0
  /** Runs fn in a transaction on client; `discard` marks the client unfit to go back to the pool. */
  const transactionOn = async <T>(client: pg.PoolClient, discard: () => void, fn: (tx: Sql) => Promise<T>): Promise<T> => {
    const tx = sqlOn(client, (inner) => inner(tx))
    for (let attempt = 1; ; attempt++) {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE').catch((error: unknown) => {
        discard()
        throw error
      })
      try {
        const value = await fn(tx)
        await client.query('COMMIT')
        return value
      } catch (error) {
        await client.query('ROLLBACK').catch(() => discard())
        if (!RETRYABLE.has((error as { code?: string }).code ?? '')) throw error
        if (attempt >= TRANSACTION_ATTEMPTS) {
          // Contention, not a fault: the caller is told to come back (503 + Retry-After), never a bare 500.
          throw new Refusal('occupied', `the database refused this write ${attempt} times as conflicting with concurrent writes; retry shortly`, { retryAfterS: 1 })
        }
        retries++
        await sleep(backoffMs(attempt))
      }
    }
  }

  /** An Sql whose statements go to `on`; `transaction` is how it runs a transaction. */
  const sqlOn = (on: Queryable, transaction: Sql['transaction']): Sql => ({
    dialect: 'postgres',
    all: async <R>(text: string, params?: SqlParams) => (await query(on, text, params)).rows as R[],
    values: async (text: string, params?: SqlParams) => (await query(on, text, params, true)).rows as unknown[][],
    get: async <R>(text: string, params?: SqlParams) => (await query(on, text, params)).rows[0] as R | undefined,
    run: async (text: string, params?: SqlParams): Promise<SqlRunResult> => ({ changes: changesOf(await query(on, text, params)) }),
    transaction,
  })

  const withClient = async <T>(fn: (client: pg.PoolClient, discard: () => void) => Promise<T>): Promise<T> => {
    const client = await pool.connect()
    // A connection whose ROLLBACK failed is closed, never handed to the next caller in an unknown state.
    let unfit = false
    // A checked-out client that loses its connection emits 'error': unheard, it would end the process; the statement
    // waiting on it fails on its own.
    const lost = () => { unfit = true }
    client.on('error', lost)
    try {
      return await fn(client, lost)
    } finally {
      client.off('error', lost)
      client.release(unfit)
    }
  }

  /** Holds the named lock for the whole transaction, retries included; taken before BEGIN (see TransactionOptions). */
  const lockedOn = async <T>(client: pg.PoolClient, discard: () => void, lock: string, fn: (tx: Sql) => Promise<T>): Promise<T> => {
    await client.query(LOCK, [lock]).catch((error: unknown) => {
      discard()
      throw error
    })
    try {
      return await transactionOn(client, discard, fn)
    } finally {
      // A connection that cannot unlock is closed, which releases every session lock it held.
      await client.query(UNLOCK, [lock]).catch(() => discard())
    }
  }
  const transaction = <T>(fn: (tx: Sql) => Promise<T>, options?: TransactionOptions): Promise<T> =>
    withClient((client, discard) => (options?.lock === undefined ? transactionOn(client, discard, fn) : lockedOn(client, discard, options.lock, fn)))

  const base = sqlOn(pool, transaction)
  return {
    ...base,
    pool,
    retries: () => retries,
    session: (fn) => withClient((client, discard) => fn(sqlOn(client, (inner) => transactionOn(client, discard, inner)))),
  }
}

/** Named locks live in their own key space (two-int form, first key fixed), apart from the migrator's single key. */
const LOCK_SPACE = 0x4e434d // 'NCM'
const LOCK = `SELECT pg_advisory_lock(${LOCK_SPACE}, hashtext($1))`
const UNLOCK = `SELECT pg_advisory_unlock(${LOCK_SPACE}, hashtext($1))`

/** Rows touched; a script of several statements answers one result per statement. */
function changesOf(result: pg.QueryResult | pg.QueryResult[]): number {
  const results = Array.isArray(result) ? result : [result]
  return results.reduce((sum, r) => sum + (r.command === 'SELECT' ? 0 : (r.rowCount ?? 0)), 0)
}

/** Up to 2^attempt ms, jittered, so two losers of the same race do not collide again in step. */
const backoffMs = (attempt: number): number => 1 + Math.random() * Math.min(250, 4 * 2 ** attempt)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
