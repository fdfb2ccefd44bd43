// /system/verify: the database's own integrity checks, dataset checksums and OHLC sanity, and the paper ledger
// re-derived from its fills. The database checks differ per dialect; the rest is plain SQL on both.
import type { Sql } from '../store/sql.js'
import type { Store } from '../store/index.js'
import { inTurns } from '../sched/turns.js'
import { BarsDigest } from './checksum.js'
import type { TradingRepository } from './repository.js'
import { applyFill, cashFlowOf, type PositionState } from './sizing.js'

export interface Check {
  name: string
  subject: string | null
  ok: boolean
  detail: string
  elapsed_ms: number
}

type Outcome = { ok: boolean; detail: string }

/** Cash and prices are doubles summed in the same order as when stored; a difference this small is rounding. */
const TOLERANCE = 1e-9

const close = (a: number, b: number): boolean => Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b))

type Planned = [name: string, subject: string | null, fn: () => Promise<Outcome>]

async function timed(name: string, subject: string | null, fn: () => Promise<Outcome>): Promise<Check> {
  const started = performance.now()
  const { ok, detail } = await fn()
  return { name, subject, ok, detail, elapsed_ms: Math.round((performance.now() - started) * 1000) / 1000 }
}

/** `checkPragma`: the store's (SQLite: a file's whole-database pragmas on a worker thread); else on the connection. */
export async function verifyAll(sql: Sql, repo: TradingRepository, now: number, checkPragma?: Store['checkPragma']) {
  const pragma: Pragma = checkPragma ?? ((name) => sql.all<Record<string, unknown>>(`PRAGMA ${name}`))
  const checks: Check[] = []
  const accounts = await repo.accounts()
  // A check per turn of the loop, and the repository's reads of bars turn it between pages and windows: the whole run
  // is seconds with the full seed.
  for await (const [name, subject, fn] of inTurns(planned(sql, pragma, repo, await repo.datasets(), accounts))) {
    checks.push(await timed(name, subject, fn))
  }
  if (accounts.length === 0) {
    checks.push({ name: 'ledger_reconciliation', subject: null, ok: true, detail: 'no paper account yet: nothing to reconcile', elapsed_ms: 0 })
  }
  const failed = checks.filter((c) => !c.ok).length
  return {
    ok: failed === 0,
    checked_at: new Date(now).toISOString(),
    summary: { passed: checks.length - failed, failed },
    checks,
  }
}

/** The checks in the order they run: the database's own, then each dataset's, then each paper account's ledger. */
function* planned(
  sql: Sql, pragma: Pragma, repo: TradingRepository,
  datasets: Awaited<ReturnType<TradingRepository['datasets']>>, accounts: Awaited<ReturnType<TradingRepository['accounts']>>,
): Generator<Planned> {
  for (const [name, check] of DATABASE_CHECKS[sql.dialect]) yield [name, null, () => check(sql, pragma)]
  for (const dataset of datasets) {
    const subject = `#${dataset.id} ${dataset.symbol}@${dataset.timeframe}`
    yield ['dataset_checksum', subject, async () => {
      const digest = new BarsDigest()
      for await (const page of repo.barPages(dataset.id)) digest.addAll(page)
      const actual = digest.hex()
      return actual === dataset.sha256
        ? { ok: true, detail: `sha256 ${actual} recomputed from ${dataset.rows} stored bars` }
        : { ok: false, detail: `stored sha256 ${dataset.sha256}, recomputed ${actual}` }
    }]
    yield ['dataset_ohlc_sanity', subject, async () => {
      const summary = await repo.barsAudit(dataset.id)
      const bad = summary.violations
      const problems: string[] = []
      if (summary.n !== dataset.rows) problems.push(`${summary.n} bars stored, ${dataset.rows} recorded`)
      if (summary.first_ts !== nullableNumber(dataset.first_ts) || summary.last_ts !== nullableNumber(dataset.last_ts)) {
        problems.push('first/last timestamps differ from the dataset record')
      }
      if (bad.n > 0) problems.push(`${bad.n} bars break 0 < low ≤ open, close ≤ high or volume ≥ 0 (first at ${new Date(bad.first_ts!).toISOString()})`)
      return problems.length
        ? { ok: false, detail: problems.join('; ') }
        : { ok: true, detail: `${summary.n} bars: prices positive, low ≤ open, close ≤ high, timestamps strictly increasing (primary key)` }
    }]
  }
  for (const account of accounts) {
    yield ['ledger_reconciliation', `account ${account.id}`, () => reconcile(repo, account.id, account.initial_cash, account.cash)]
  }
}

const nullableNumber = (value: number | string | null): number | null => (value === null ? null : Number(value))

/** The database's own checks, by dialect: SQLite's pragmas; on PostgreSQL, what can be broken there (see below). */
type Pragma = NonNullable<Store['checkPragma']>

const DATABASE_CHECKS: Record<Sql['dialect'], Array<[string, (sql: Sql, pragma: Pragma) => Promise<Outcome>]>> = {
  sqlite: [
    ['sqlite_integrity_check', async (_sql, pragma) => {
      const messages = (await pragma('integrity_check')).map((r) => String(r.integrity_check))
      return messages.length === 1 && messages[0] === 'ok'
        ? { ok: true, detail: 'ok' }
        : { ok: false, detail: messages.slice(0, 10).join('; ') }
    }],
    ['sqlite_foreign_key_check', async (_sql, pragma) => {
      const rows = (await pragma('foreign_key_check')) as Array<{ table: string; rowid: number; parent: string }>
      return rows.length === 0
        ? { ok: true, detail: 'no row refers to a missing parent' }
        : { ok: false, detail: `${rows.length} rows refer to missing parents, e.g. ${rows.slice(0, 5).map((r) => `${r.table} rowid ${r.rowid} → ${r.parent}`).join(', ')}` }
    }],
  ],
  // PostgreSQL checks pages itself and always enforces a validated foreign key; what can still be wrong is an index
  // left invalid (a failed CREATE INDEX CONCURRENTLY: unique no longer enforced) or a constraint added NOT VALID.
  postgres: [
    ['postgres_indexes_valid', async (sql) => {
      const rows = await sql.all<{ name: string }>(
        `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND NOT (i.indisvalid AND i.indisready) ORDER BY c.relname`,
      )
      return rows.length === 0
        ? { ok: true, detail: 'every index is valid and ready' }
        : { ok: false, detail: `${rows.length} indexes are invalid (rebuild with REINDEX): ${rows.slice(0, 10).map((r) => r.name).join(', ')}` }
    }],
    ['postgres_constraints_validated', async (sql) => {
      const rows = await sql.all<{ name: string; table_name: string }>(
        `SELECT con.conname AS name, cl.relname AS table_name FROM pg_constraint con
         JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
         WHERE n.nspname = current_schema() AND con.contype IN ('f', 'c') AND NOT con.convalidated ORDER BY cl.relname, con.conname`,
      )
      return rows.length === 0
        ? { ok: true, detail: 'every foreign key and check constraint is validated: no row refers to a missing parent' }
        : { ok: false, detail: `${rows.length} constraints are NOT VALID (ALTER TABLE … VALIDATE CONSTRAINT): ${rows.slice(0, 10).map((r) => `${r.table_name}.${r.name}`).join(', ')}` }
    }],
  ],
}

/** Cash and every position re-derived from the fills alone must equal what is stored, and the cash ledger must agree. */
async function reconcile(repo: TradingRepository, accountId: string, initialCash: number, storedCash: number): Promise<Outcome> {
  const problems: string[] = []
  const fills = await repo.fillsOf(accountId)
  let cash = initialCash
  const derived = new Map<number, PositionState>()
  for (const fill of fills) {
    const flow = cashFlowOf(fill.side, fill.quantity, fill.price, fill.commission)
    cash += flow.trade
    if (fill.commission > 0) cash += flow.commission
    const before = derived.get(fill.dataset_id) ?? { quantity: 0, avgPrice: 0, realizedPnl: 0 }
    derived.set(fill.dataset_id, applyFill(before, fill.side === 'buy' ? fill.quantity : -fill.quantity, fill.price))
  }
  if (!close(cash, storedCash)) problems.push(`cash from fills ${cash} ≠ stored ${storedCash}`)

  const entries = await repo.cashEntriesOf(accountId)
  const ledgerSum = entries.reduce((sum, e) => sum + e.amount, 0)
  if (!close(ledgerSum, storedCash)) problems.push(`cash ledger sums to ${ledgerSum} ≠ stored ${storedCash}`)
  const last = entries.at(-1)
  if (last && !close(last.balance_after, storedCash)) problems.push(`last ledger balance ${last.balance_after} ≠ stored ${storedCash}`)

  const stored = new Map((await repo.positions(accountId)).map((p) => [p.dataset_id, p]))
  for (const [datasetId, want] of derived) {
    const have = stored.get(datasetId)
    if (!have) {
      problems.push(`dataset #${datasetId}: fills make a position of ${want.quantity}, none stored`)
      continue
    }
    if (have.quantity !== want.quantity) problems.push(`dataset #${datasetId}: quantity from fills ${want.quantity} ≠ stored ${have.quantity}`)
    if (!close(have.avg_price, want.avgPrice)) problems.push(`dataset #${datasetId}: average price from fills ${want.avgPrice} ≠ stored ${have.avg_price}`)
    if (!close(have.realized_pnl, want.realizedPnl)) problems.push(`dataset #${datasetId}: realised P&L from fills ${want.realizedPnl} ≠ stored ${have.realized_pnl}`)
  }
  for (const datasetId of stored.keys()) if (!derived.has(datasetId)) problems.push(`dataset #${datasetId}: a position is stored without any fill`)

  return problems.length
    ? { ok: false, detail: problems.slice(0, 10).join('; ') }
    : { ok: true, detail: `${fills.length} fills re-derive cash ${storedCash} and ${derived.size} positions exactly; ${entries.length} ledger entries agree` }
}
