// The trading tables through Sql (src/store/sql.ts): one repository per Sql, the same code on SQLite and PostgreSQL.
// Writes that belong together go through `transaction`, whose repository reads and writes on the transaction's Sql.
import { perDatabase } from '../store/repository.js'
import type { Sql, TransactionOptions } from '../store/sql.js'
import { countRows } from '../store/count.js'
import { createPagedReads } from './repository-pages.js'
import { createLedgerTables } from './repository-ledger.js'
import { createMarketTables } from './repository-market.js'
import { createRunTables } from './repository-runs.js'
import type { IdempotencyRow } from './rows.js'

export type * from './rows.js'

/** The tables this module owns, in the order verify and stats list them. */
export const TRADING_TABLES = [
  'datasets', 'bars', 'runs', 'signals', 'accounts', 'cycles', 'orders', 'fills', 'positions', 'cash_ledger',
  'idempotency_keys',
] as const

type TradingTable = (typeof TRADING_TABLES)[number]

export type TradingRepository = ReturnType<typeof buildTables> & {
  /** The Sql it reads and writes on (inside `transaction`, the transaction's). */
  readonly sql: Sql
  /**
   * Runs fn in one transaction with the repository of the transaction's Sql. Only database work inside: on
   * PostgreSQL fn may run again (SERIALIZABLE, retried), on SQLite every other statement waits while it runs.
   */
  transaction<T>(fn: (tx: TradingRepository) => Promise<T>, options?: TransactionOptions): Promise<T>
}

/** The trading tables' repository of a Sql: one per Sql (service, seed and imports share it). */
export const createTradingRepository = perDatabase((sql: Sql): TradingRepository => ({
  ...buildTables(sql),
  sql,
  transaction: (fn, options) => sql.transaction((tx) => fn(createTradingRepository(tx)), options),
}))

function buildTables(sql: Sql) {
  return {
    ...createPagedReads(sql),
    ...createMarketTables(sql),
    ...createRunTables(sql),
    ...createLedgerTables(sql),

    idempotency: (key: string): Promise<IdempotencyRow | undefined> =>
      sql.get<IdempotencyRow>('SELECT * FROM idempotency_keys WHERE key = ?', [key]),
    /** False when the key is already stored: another request holds it (its unique constraint decides). */
    insertIdempotency: async (row: IdempotencyRow): Promise<boolean> => (await sql.run(
      `INSERT INTO idempotency_keys (key, route, request_digest, status_code, response, created_at)
       VALUES (@key, @route, @request_digest, @status_code, @response, @created_at) ON CONFLICT (key) DO NOTHING`,
      { ...row },
    )).changes === 1,

    async tableCounts(): Promise<Record<TradingTable, number>> {
      const counts = await Promise.all(TRADING_TABLES.map((t) => countRows(sql, t)))
      return Object.fromEntries(TRADING_TABLES.map((t, i) => [t, counts[i]!])) as Record<TradingTable, number>
    },
  }
}
