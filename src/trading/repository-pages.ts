// The trading tables read back page by page (keyset, src/store/keyset.ts) and a dataset's removal: part of the
// trading repository.
import { clientKeyOf } from './owned-keys.js'
import { keysetPages } from '../store/keyset.js'
import type { Sql } from '../store/sql.js'
import type { BarRow } from './repository-market.js'
import type { AccountRow, CycleRow, DatasetRow, FillRow, OrderRow, PositionRow, RunKind, RunRow } from './rows.js'

type After = readonly (string | number)[] | null

export type RunListRow = Omit<RunRow, 'equity' | 'request'> & { equity_stored: number; symbol: string; timeframe: string }
export type { BarRow }

export interface RunFilter {
  /** Only this owner's runs (Principal.owner); null: every run. */
  owner: string | null
  kind: RunKind | null
  dataset_id: number | null
  strategy: string | null
}

export interface LedgerFilter {
  account_id: string | null
  dataset_id: number | null
}

/** Rows that point at a dataset; runs and signals may go with it, the paper ledger never does. */
export interface DatasetReferences {
  runs: number
  signals: number
  cycles: number
  orders: number
  fills: number
  positions: number
}

// The column comparison comes first: PostgreSQL takes a parameter's type from its first use, and `? IS NULL` has none.
const byAccountAndDataset = ['(account_id = @account_id OR @account_id IS NULL)', '(dataset_id = @dataset_id OR @dataset_id IS NULL)']

export function createPagedReads(sql: Sql) {
  const datasets = keysetPages<DatasetRow>(sql, { select: 'SELECT * FROM datasets', key: ['id'], order: 'asc' })
  const bars = keysetPages<BarRow>(sql, {
    select: 'SELECT ts, open, high, low, close, volume FROM bars',
    where: ['dataset_id = @dataset_id'],
    key: ['ts'],
    order: 'asc',
  })
  // Newest first; the equity curve itself stays out of a listing. One owner's runs are walked from its owner index.
  const runColumns = `r.id, r.kind, r.dataset_id, r.strategy, r.params, r.inputs_digest, r.stats, r.elapsed_ms, r.created_at,
               CASE WHEN r.equity IS NULL THEN 0 ELSE 1 END AS equity_stored, d.symbol, d.timeframe`
  const runFilters = ['(r.kind = @kind OR @kind IS NULL)', '(r.dataset_id = @dataset_id OR @dataset_id IS NULL)', '(r.strategy = @strategy OR @strategy IS NULL)']
  const runs = keysetPages<RunListRow>(sql, {
    select: `SELECT ${runColumns} FROM runs r JOIN datasets d ON d.id = r.dataset_id`,
    where: runFilters,
    key: ['r.id'],
    order: 'desc',
  })
  const ownRuns = keysetPages<RunListRow>(sql, {
    select: `SELECT ${runColumns} FROM run_owners o JOIN runs r ON r.id = o.run_id JOIN datasets d ON d.id = r.dataset_id`,
    where: ['o.owner = @owner', ...runFilters],
    key: ['o.run_id'],
    order: 'desc',
  })
  const accounts = keysetPages<AccountRow>(sql, { select: 'SELECT * FROM accounts', key: ['id'], order: 'asc' })
  const positions = keysetPages<PositionRow>(sql, {
    select: 'SELECT * FROM positions', where: byAccountAndDataset, key: ['account_id', 'dataset_id'], order: 'asc',
  })
  const orders = keysetPages<OrderRow>(sql, { select: 'SELECT * FROM orders', where: byAccountAndDataset, key: ['id'], order: 'desc' })
  const fills = keysetPages<FillRow>(sql, { select: 'SELECT * FROM fills', where: byAccountAndDataset, key: ['id'], order: 'desc' })
  const cycles = keysetPages<CycleRow>(sql, { select: 'SELECT * FROM cycles', where: byAccountAndDataset, key: ['id'], order: 'desc' })

  return {
    datasetsPage: (after: After, limit: number) => datasets({}, after, limit),
    barsPage: (datasetId: number, after: After, limit: number) => bars({ dataset_id: datasetId }, after, limit),
    /** Runs newest first: `owner`'s own, or every run when the filter's owner is null. */
    runsPage: ({ owner, ...filter }: RunFilter, after: After, limit: number) =>
      owner === null ? runs({ ...filter }, after, limit) : ownRuns({ ...filter, owner }, after, limit),
    accountsPage: (after: After, limit: number) => accounts({}, after, limit),
    positionsPage: (filter: LedgerFilter, after: After, limit: number) => positions({ ...filter }, after, limit),
    ordersPage: (filter: LedgerFilter, after: After, limit: number) => orders({ ...filter }, after, limit),
    fillsPage: (filter: LedgerFilter, after: After, limit: number) => fills({ ...filter }, after, limit),
    // A stored key names its owner; the ledger is public, so it shows the key as the client sent it.
    cyclesPage: async (filter: LedgerFilter, after: After, limit: number) => (await cycles({ ...filter }, after, limit))
      .map((row) => ({ ...row, idempotency_key: row.idempotency_key === null ? null : clientKeyOf(row.idempotency_key) })),

    async datasetReferences(id: number): Promise<DatasetReferences> {
      const row = (await sql.get<Record<keyof DatasetReferences, number | string>>(
        `SELECT (SELECT count(*) FROM runs WHERE dataset_id = @id) AS runs,
                (SELECT count(*) FROM signals WHERE dataset_id = @id) AS signals,
                (SELECT count(*) FROM cycles WHERE dataset_id = @id) AS cycles,
                (SELECT count(*) FROM orders WHERE dataset_id = @id) AS orders,
                (SELECT count(*) FROM fills WHERE dataset_id = @id) AS fills,
                (SELECT count(*) FROM positions WHERE dataset_id = @id) AS positions`,
        { id },
      ))!
      return {
        runs: Number(row.runs), signals: Number(row.signals), cycles: Number(row.cycles),
        orders: Number(row.orders), fills: Number(row.fills), positions: Number(row.positions),
      }
    },
    /** Removes a dataset, its bars, and (the caller has decided so) its runs and signals; call on a transaction's Sql. */
    async deleteDatasetWithRuns(id: number): Promise<{ bars: number; runs: number; signals: number }> {
      const bars = Number((await sql.get<{ n: number }>('SELECT rows AS n FROM datasets WHERE id = ?', [id]))?.n ?? 0)
      const signals = (await sql.run('DELETE FROM signals WHERE dataset_id = ?', [id])).changes
      // Signals of other datasets never point at these runs (a signal's run is a run of its own dataset), but be exact.
      await sql.run('UPDATE signals SET run_id = NULL WHERE run_id IN (SELECT id FROM runs WHERE dataset_id = ?)', [id])
      const runs = (await sql.run('DELETE FROM runs WHERE dataset_id = ?', [id])).changes
      await sql.run('DELETE FROM datasets WHERE id = ?', [id]) // bars go by ON DELETE CASCADE
      return { bars, runs, signals }
    },
  }
}
