// The trading tables: prepared once, synchronous, called inside the service's transactions (never across an await).
import type { Db } from '../store/index.js'
import { perDatabase } from '../store/repository.js'
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

export type TradingRepository = ReturnType<typeof buildTradingRepository>

/** The trading tables' repository of a database: one per database (service, seed and imports share it). */
export const createTradingRepository = perDatabase(buildTradingRepository)

function buildTradingRepository(db: Db) {
  const s = {
    idempotency: db.prepare<[string], IdempotencyRow>('SELECT * FROM idempotency_keys WHERE key = ?'),
    insertIdempotency: db.prepare<[IdempotencyRow]>(
      `INSERT INTO idempotency_keys (key, route, request_digest, status_code, response, created_at)
       VALUES (@key, @route, @request_digest, @status_code, @response, @created_at)`,
    ),
  }

  const countOf = (table: (typeof TRADING_TABLES)[number]) => db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`)
  const counts = Object.fromEntries(TRADING_TABLES.map((t) => [t, countOf(t)])) as Record<
    (typeof TRADING_TABLES)[number],
    ReturnType<typeof countOf>
  >

  return {
    ...createPagedReads(db),
    ...createMarketTables(db),
    ...createRunTables(db),
    ...createLedgerTables(db),

    idempotency: (key: string): IdempotencyRow | undefined => s.idempotency.get(key),
    insertIdempotency: (row: IdempotencyRow): void => void s.insertIdempotency.run(row),

    tableCounts(): Record<(typeof TRADING_TABLES)[number], number> {
      return Object.fromEntries(TRADING_TABLES.map((t) => [t, counts[t].get()!.n])) as Record<
        (typeof TRADING_TABLES)[number],
        number
      >
    },
  }
}
