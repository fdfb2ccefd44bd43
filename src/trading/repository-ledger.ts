// The paper accounts' tables (part of the trading repository): accounts, positions, cycles, orders, fills and the cash
// ledger. Writes go through a transaction's Sql, which also reads the rows they depend on (cash, position).
import type { Sql } from '../store/sql.js'
import type { AccountRow, PositionRow, CycleRow, OrderRow, FillRow, CashEntryRow } from './rows.js'

const idOf = (row: { id: number } | undefined): number => Number(row!.id)

export function createLedgerTables(sql: Sql) {
  return {
    account: (id: string): Promise<AccountRow | undefined> => sql.get<AccountRow>('SELECT * FROM accounts WHERE id = ?', [id]),
    accounts: (): Promise<AccountRow[]> => sql.all<AccountRow>('SELECT * FROM accounts ORDER BY id'),
    insertAccount: async (account: AccountRow): Promise<void> => {
      await sql.run(
        'INSERT INTO accounts (id, currency, initial_cash, cash, created_at) VALUES (@id, @currency, @initial_cash, @cash, @created_at)',
        { ...account },
      )
    },
    setCash: async (id: string, cash: number): Promise<void> => {
      await sql.run('UPDATE accounts SET cash = ? WHERE id = ?', [cash, id])
    },
    position: (accountId: string, datasetId: number): Promise<PositionRow | undefined> =>
      sql.get<PositionRow>('SELECT * FROM positions WHERE account_id = ? AND dataset_id = ?', [accountId, datasetId]),
    positions: (accountId: string): Promise<PositionRow[]> =>
      sql.all<PositionRow>('SELECT * FROM positions WHERE account_id = ? ORDER BY dataset_id', [accountId]),
    upsertPosition: async (position: PositionRow): Promise<void> => {
      await sql.run(
        `INSERT INTO positions (account_id, dataset_id, symbol, quantity, avg_price, realized_pnl, updated_at)
         VALUES (@account_id, @dataset_id, @symbol, @quantity, @avg_price, @realized_pnl, @updated_at)
         ON CONFLICT (account_id, dataset_id) DO UPDATE SET
           quantity = excluded.quantity, avg_price = excluded.avg_price,
           realized_pnl = excluded.realized_pnl, updated_at = excluded.updated_at`,
        { ...position },
      )
    },
    insertCycle: async (cycle: Omit<CycleRow, 'id'>): Promise<number> => idOf(await sql.get<{ id: number }>(
      `INSERT INTO cycles (account_id, dataset_id, signal_id, idempotency_key, outcome, created_at)
       VALUES (@account_id, @dataset_id, @signal_id, @idempotency_key, @outcome, @created_at) RETURNING id`,
      cycle,
    )),
    insertOrder: async (order: Omit<OrderRow, 'id'>): Promise<number> => idOf(await sql.get<{ id: number }>(
      `INSERT INTO orders (cycle_id, account_id, dataset_id, symbol, side, quantity, type, status, reference_price, created_at)
       VALUES (@cycle_id, @account_id, @dataset_id, @symbol, @side, @quantity, @type, @status, @reference_price, @created_at) RETURNING id`,
      order,
    )),
    insertFill: async (fill: Omit<FillRow, 'id'>): Promise<number> => idOf(await sql.get<{ id: number }>(
      `INSERT INTO fills (order_id, account_id, dataset_id, symbol, side, quantity, price, commission, slippage_bps, bar_ts, created_at)
       VALUES (@order_id, @account_id, @dataset_id, @symbol, @side, @quantity, @price, @commission, @slippage_bps, @bar_ts, @created_at) RETURNING id`,
      fill,
    )),
    fillsOf: (accountId: string): Promise<FillRow[]> => sql.all<FillRow>('SELECT * FROM fills WHERE account_id = ? ORDER BY id', [accountId]),
    insertCash: async (entry: Omit<CashEntryRow, 'id'>): Promise<number> => idOf(await sql.get<{ id: number }>(
      `INSERT INTO cash_ledger (account_id, kind, amount, balance_after, fill_id, created_at)
       VALUES (@account_id, @kind, @amount, @balance_after, @fill_id, @created_at) RETURNING id`,
      entry,
    )),
    cashEntriesOf: (accountId: string): Promise<CashEntryRow[]> =>
      sql.all<CashEntryRow>('SELECT * FROM cash_ledger WHERE account_id = ? ORDER BY id', [accountId]),
  }
}
