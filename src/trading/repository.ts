// The trading tables: prepared once, synchronous, called inside the service's transactions (never across an await).
import type { Db } from '../store/index.js'
import { perDatabase } from '../store/repository.js'
import type { Bars } from '../engines/trading/types.js'
import { createPagedReads } from './repository-pages.js'

import type {
  DatasetSource, DatasetRow, NewDataset, RunKind, RunRow, NewRun, SignalValue, SignalOrigin, SignalRow, AccountRow, PositionRow, CycleRow, Side, OrderRow, FillRow, CashEntryRow, IdempotencyRow,
} from './rows.js'

export type * from './rows.js'

/** The tables this module owns, in the order verify and stats list them. */
export const TRADING_TABLES = [
  'datasets', 'bars', 'runs', 'signals', 'accounts', 'cycles', 'orders', 'fills', 'positions', 'cash_ledger',
  'idempotency_keys',
] as const

type BarTuple = [number, number, number, number, number, number]

const BAR_BATCH = 256

export type TradingRepository = ReturnType<typeof buildTradingRepository>

/** The trading tables' repository of a database: one per database (service, seed and imports share it). */
export const createTradingRepository = perDatabase(buildTradingRepository)

function buildTradingRepository(db: Db) {
  const s = {
    insertDataset: db.prepare<[NewDataset]>(
      `INSERT INTO datasets (symbol, timeframe, source, rows, first_ts, last_ts, sha256, seed, generator, origin, created_at)
       VALUES (@symbol, @timeframe, @source, 0, NULL, NULL, @sha256, @seed, @generator, @origin, @created_at)`,
    ),
    finishDataset: db.prepare<[number, number | null, number | null, number]>(
      'UPDATE datasets SET rows = ?, first_ts = ?, last_ts = ? WHERE id = ?',
    ),
    insertBar: db.prepare<number[]>(
      'INSERT INTO bars (dataset_id, ts, open, high, low, close, volume) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    // Many rows per statement: one call into SQLite per batch instead of per bar.
    insertBars: db.prepare<number[]>(
      `INSERT INTO bars (dataset_id, ts, open, high, low, close, volume) VALUES ${
        Array.from({ length: BAR_BATCH }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    ),
    datasets: db.prepare<[], DatasetRow>('SELECT * FROM datasets ORDER BY id'),
    datasetById: db.prepare<[number], DatasetRow>('SELECT * FROM datasets WHERE id = ?'),
    datasetsBySymbol: db.prepare<[string], DatasetRow>('SELECT * FROM datasets WHERE symbol = ? COLLATE NOCASE ORDER BY id'),
    datasetByKey: db.prepare<[string, string], DatasetRow>('SELECT * FROM datasets WHERE symbol = ? AND timeframe = ?'),
    datasetCount: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM datasets'),
    barsCount: db.prepare<[number, number, number], { n: number }>(
      'SELECT count(*) AS n FROM bars WHERE dataset_id = ? AND ts >= ? AND ts <= ?',
    ),
    barsRange: db.prepare<[number, number, number], BarTuple>(
      'SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? AND ts >= ? AND ts <= ? ORDER BY ts',
    ).raw(true),
    barsSummary: db.prepare<[number], { n: number; first_ts: number | null; last_ts: number | null }>(
      'SELECT count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts FROM bars WHERE dataset_id = ?',
    ),
    ohlcViolations: db.prepare<[number], { n: number; first_ts: number | null }>(
      `SELECT count(*) AS n, min(ts) AS first_ts FROM bars WHERE dataset_id = ? AND NOT (
         open > 0 AND low > 0 AND close > 0 AND volume >= 0
         AND low <= open AND low <= close AND open <= high AND close <= high)`,
    ),
    lastBar: db.prepare<[number], { ts: number; open: number; high: number; low: number; close: number; volume: number }>(
      'SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? ORDER BY ts DESC LIMIT 1',
    ),

    insertRun: db.prepare<[NewRun]>(
      `INSERT INTO runs (kind, dataset_id, strategy, params, request, inputs_digest, stats, equity, elapsed_ms, created_at)
       VALUES (@kind, @dataset_id, @strategy, @params, @request, @inputs_digest, @stats, @equity, @elapsed_ms, @created_at)`,
    ),
    runById: db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?'),
    recentRuns: db.prepare<[number], Omit<RunRow, 'equity' | 'request'>>(
      `SELECT id, kind, dataset_id, strategy, params, inputs_digest, stats, elapsed_ms, created_at
       FROM runs ORDER BY id DESC LIMIT ?`,
    ),
    latestBacktest: db.prepare<[], RunRow>(
      "SELECT * FROM runs WHERE kind = 'backtest' AND equity IS NOT NULL ORDER BY id DESC LIMIT 1",
    ),
    earlierRunWithDigest: db.prepare<[string, number], { id: number }>(
      'SELECT id FROM runs WHERE inputs_digest = ? AND id < ? ORDER BY id LIMIT 1',
    ),
    runCounts: db.prepare<[], { kind: RunKind; n: number }>('SELECT kind, count(*) AS n FROM runs GROUP BY kind'),
    firstRunWithDigest: db.prepare<[string], { id: number; created_at: string; has_equity: 0 | 1 }>(
      'SELECT id, created_at, equity IS NOT NULL AS has_equity FROM runs WHERE inputs_digest = ? ORDER BY id LIMIT 1',
    ),
    setMissingRunEquity: db.prepare<[string, number]>('UPDATE runs SET equity = ? WHERE id = ? AND equity IS NULL'),
    oldestRunAt: db.prepare<[], { created_at: string }>('SELECT created_at FROM runs ORDER BY id LIMIT 1'),
    // Ids grow with time, so "oldest" is "lowest id": the last stale run among the oldest thousand bounds the work per call.
    lastStaleRun: db.prepare<[string], { id: number | null }>(
      'SELECT max(id) AS id FROM (SELECT id, created_at FROM runs ORDER BY id LIMIT 1000) WHERE created_at < ?',
    ),
    unlinkSignalsOfRunsUpTo: db.prepare<[number]>('UPDATE signals SET run_id = NULL WHERE run_id IS NOT NULL AND run_id <= ?'),
    deleteRunsUpTo: db.prepare<[number]>('DELETE FROM runs WHERE id <= ?'),

    insertSignal: db.prepare<[Omit<SignalRow, 'id'>]>(
      `INSERT INTO signals (dataset_id, strategy, params, signal, bar_ts, origin, run_id, created_at)
       VALUES (@dataset_id, @strategy, @params, @signal, @bar_ts, @origin, @run_id, @created_at)`,
    ),
    recentSignals: db.prepare<[number], SignalRow & { symbol: string; timeframe: string }>(
      `SELECT s.*, d.symbol, d.timeframe FROM signals s JOIN datasets d ON d.id = s.dataset_id
       ORDER BY s.id DESC LIMIT ?`,
    ),

    account: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    accounts: db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY id'),
    insertAccount: db.prepare<[AccountRow]>(
      'INSERT INTO accounts (id, currency, initial_cash, cash, created_at) VALUES (@id, @currency, @initial_cash, @cash, @created_at)',
    ),
    setCash: db.prepare<[number, string]>('UPDATE accounts SET cash = ? WHERE id = ?'),
    position: db.prepare<[string, number], PositionRow>('SELECT * FROM positions WHERE account_id = ? AND dataset_id = ?'),
    positions: db.prepare<[string], PositionRow>('SELECT * FROM positions WHERE account_id = ? ORDER BY dataset_id'),
    allPositions: db.prepare<[], PositionRow>('SELECT * FROM positions ORDER BY account_id, dataset_id'),
    upsertPosition: db.prepare<[PositionRow]>(
      `INSERT INTO positions (account_id, dataset_id, symbol, quantity, avg_price, realized_pnl, updated_at)
       VALUES (@account_id, @dataset_id, @symbol, @quantity, @avg_price, @realized_pnl, @updated_at)
       ON CONFLICT (account_id, dataset_id) DO UPDATE SET
         quantity = excluded.quantity, avg_price = excluded.avg_price,
         realized_pnl = excluded.realized_pnl, updated_at = excluded.updated_at`,
    ),
    insertCycle: db.prepare<[Omit<CycleRow, 'id'>]>(
      `INSERT INTO cycles (account_id, dataset_id, signal_id, idempotency_key, outcome, created_at)
       VALUES (@account_id, @dataset_id, @signal_id, @idempotency_key, @outcome, @created_at)`,
    ),
    insertOrder: db.prepare<[Omit<OrderRow, 'id'>]>(
      `INSERT INTO orders (cycle_id, account_id, dataset_id, symbol, side, quantity, type, status, reference_price, created_at)
       VALUES (@cycle_id, @account_id, @dataset_id, @symbol, @side, @quantity, @type, @status, @reference_price, @created_at)`,
    ),
    insertFill: db.prepare<[Omit<FillRow, 'id'>]>(
      `INSERT INTO fills (order_id, account_id, dataset_id, symbol, side, quantity, price, commission, slippage_bps, bar_ts, created_at)
       VALUES (@order_id, @account_id, @dataset_id, @symbol, @side, @quantity, @price, @commission, @slippage_bps, @bar_ts, @created_at)`,
    ),
    fillsOf: db.prepare<[string], FillRow>('SELECT * FROM fills WHERE account_id = ? ORDER BY id'),
    insertCash: db.prepare<[Omit<CashEntryRow, 'id'>]>(
      `INSERT INTO cash_ledger (account_id, kind, amount, balance_after, fill_id, created_at)
       VALUES (@account_id, @kind, @amount, @balance_after, @fill_id, @created_at)`,
    ),
    cashEntriesOf: db.prepare<[string], CashEntryRow>('SELECT * FROM cash_ledger WHERE account_id = ? ORDER BY id'),

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
    /** Inserts a dataset and all its bars; call inside a transaction so a bad bar leaves nothing behind. */
    insertDataset(meta: NewDataset, bars: Bars): DatasetRow {
      const id = Number(s.insertDataset.run(meta).lastInsertRowid)
      const n = bars.ts.length
      const batch = new Array<number>(BAR_BATCH * 7)
      let i = 0
      for (; i + BAR_BATCH <= n; i += BAR_BATCH) {
        for (let j = 0; j < BAR_BATCH; j++) {
          const k = i + j
          const o = j * 7
          batch[o] = id; batch[o + 1] = bars.ts[k]!; batch[o + 2] = bars.open[k]!; batch[o + 3] = bars.high[k]!
          batch[o + 4] = bars.low[k]!; batch[o + 5] = bars.close[k]!; batch[o + 6] = bars.volume[k]!
        }
        s.insertBars.run(...batch)
      }
      for (; i < n; i++) {
        s.insertBar.run(id, bars.ts[i]!, bars.open[i]!, bars.high[i]!, bars.low[i]!, bars.close[i]!, bars.volume[i]!)
      }
      s.finishDataset.run(n, n > 0 ? bars.ts[0]! : null, n > 0 ? bars.ts[n - 1]! : null, id)
      return s.datasetById.get(id)!
    },
    datasets: (): DatasetRow[] => s.datasets.all(),
    datasetById: (id: number): DatasetRow | undefined => s.datasetById.get(id),
    datasetsBySymbol: (symbol: string): DatasetRow[] => s.datasetsBySymbol.all(symbol),
    datasetByKey: (symbol: string, timeframe: string): DatasetRow | undefined => s.datasetByKey.get(symbol, timeframe),
    datasetCount: (): number => s.datasetCount.get()!.n,

    /** Bars of a dataset with from ≤ ts ≤ to, into typed arrays. */
    loadBars(id: number, from = Number.MIN_SAFE_INTEGER, to = Number.MAX_SAFE_INTEGER): Bars {
      const n = s.barsCount.get(id, from, to)!.n
      const bars: Bars = {
        ts: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n),
        low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n),
      }
      let i = 0
      for (const row of s.barsRange.iterate(id, from, to)) {
        if (i >= n) break
        bars.ts[i] = row[0]; bars.open[i] = row[1]; bars.high[i] = row[2]
        bars.low[i] = row[3]; bars.close[i] = row[4]; bars.volume[i] = row[5]
        i++
      }
      return bars
    },
    /** Streams a dataset's bars in time order as [ts, open, high, low, close, volume]. */
    iterateBars: (id: number): IterableIterator<BarTuple> =>
      s.barsRange.iterate(id, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    barsSummary: (id: number) => s.barsSummary.get(id)!,
    ohlcViolations: (id: number) => s.ohlcViolations.get(id)!,
    lastBar: (id: number) => s.lastBar.get(id),

    insertRun: (run: NewRun): number => Number(s.insertRun.run(run).lastInsertRowid),
    runById: (id: number): RunRow | undefined => s.runById.get(id),
    recentRuns: (limit: number) => s.recentRuns.all(limit),
    latestBacktest: (): RunRow | undefined => s.latestBacktest.get(),
    earlierRunWithDigest: (digest: string, beforeId: number): number | null =>
      s.earlierRunWithDigest.get(digest, beforeId)?.id ?? null,
    /** The first stored run with these inputs (identical runs are stored once). */
    firstRunWithDigest: (digest: string) => s.firstRunWithDigest.get(digest),
    /** Gives a run stored without its equity curve the curve a repeat of it asked for. */
    setMissingRunEquity: (id: number, equity: string): void => { s.setMissingRunEquity.run(equity, id) },
    /**
     * Deletes the oldest runs beyond the retention policy (count and/or age; 0 = no limit of that kind), unlinking the
     * signals that point at them; the newest run always stays. Answers how many runs went.
     */
    pruneRuns(newestId: number, policy: { maxRuns: number; maxAgeDays: number }, now: number): number {
      let upTo = policy.maxRuns > 0 ? newestId - policy.maxRuns : 0
      if (policy.maxAgeDays > 0) {
        const cutoff = new Date(now - policy.maxAgeDays * 86_400_000).toISOString()
        // One index step when the oldest run is young enough, which is the usual case.
        const oldest = s.oldestRunAt.get()?.created_at
        if (oldest !== undefined && oldest < cutoff) upTo = Math.max(upTo, s.lastStaleRun.get(cutoff)?.id ?? 0)
      }
      upTo = Math.min(upTo, newestId - 1)
      if (upTo <= 0) return 0
      s.unlinkSignalsOfRunsUpTo.run(upTo)
      return s.deleteRunsUpTo.run(upTo).changes
    },
    runCounts(): Record<RunKind, number> {
      const out: Record<RunKind, number> = { backtest: 0, simulate: 0, max_edge: 0, max_edge_v10: 0, full_cycle_search: 0 }
      for (const { kind, n } of s.runCounts.all()) out[kind] = n
      return out
    },

    insertSignal: (signal: Omit<SignalRow, 'id'>): number => Number(s.insertSignal.run(signal).lastInsertRowid),
    recentSignals: (limit: number) => s.recentSignals.all(limit),

    account: (id: string): AccountRow | undefined => s.account.get(id),
    accounts: (): AccountRow[] => s.accounts.all(),
    insertAccount: (account: AccountRow): void => void s.insertAccount.run(account),
    setCash: (id: string, cash: number): void => void s.setCash.run(cash, id),
    position: (accountId: string, datasetId: number): PositionRow | undefined => s.position.get(accountId, datasetId),
    positions: (accountId: string): PositionRow[] => s.positions.all(accountId),
    allPositions: (): PositionRow[] => s.allPositions.all(),
    upsertPosition: (position: PositionRow): void => void s.upsertPosition.run(position),
    insertCycle: (cycle: Omit<CycleRow, 'id'>): number => Number(s.insertCycle.run(cycle).lastInsertRowid),
    insertOrder: (order: Omit<OrderRow, 'id'>): number => Number(s.insertOrder.run(order).lastInsertRowid),
    insertFill: (fill: Omit<FillRow, 'id'>): number => Number(s.insertFill.run(fill).lastInsertRowid),
    fillsOf: (accountId: string): FillRow[] => s.fillsOf.all(accountId),
    insertCash: (entry: Omit<CashEntryRow, 'id'>): number => Number(s.insertCash.run(entry).lastInsertRowid),
    cashEntriesOf: (accountId: string): CashEntryRow[] => s.cashEntriesOf.all(accountId),

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
