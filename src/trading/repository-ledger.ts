// The paper accounts' tables (part of the trading repository): accounts, positions, cycles, orders, fills and the cash ledger.
import type { Db } from '../store/index.js'
import type { AccountRow, PositionRow, CycleRow, OrderRow, FillRow, CashEntryRow } from './rows.js'


export function createLedgerTables(db: Db) {
  const s = {
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
  }

  return {
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
  }
}
