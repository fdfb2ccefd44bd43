// /system/verify: SQLite integrity, dataset checksums and OHLC sanity, and the paper ledger re-derived from its fills.
import type { Store } from '../store/index.js'
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

/** Cash and prices are doubles summed in the same order as when stored; a difference this small is rounding. */
const TOLERANCE = 1e-9

const close = (a: number, b: number): boolean => Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b))

function timed(name: string, subject: string | null, fn: () => { ok: boolean; detail: string }): Check {
  const started = performance.now()
  const { ok, detail } = fn()
  return { name, subject, ok, detail, elapsed_ms: Math.round((performance.now() - started) * 1000) / 1000 }
}

export function verifyAll(store: Store, repo: TradingRepository, now: number) {
  const checks: Check[] = []
  checks.push(timed('sqlite_integrity_check', null, () => {
    const rows = store.db.pragma('integrity_check') as Array<{ integrity_check: string }>
    const messages = rows.map((r) => r.integrity_check)
    return messages.length === 1 && messages[0] === 'ok'
      ? { ok: true, detail: 'ok' }
      : { ok: false, detail: messages.slice(0, 10).join('; ') }
  }))
  checks.push(timed('sqlite_foreign_key_check', null, () => {
    const rows = store.db.pragma('foreign_key_check') as Array<{ table: string; rowid: number; parent: string }>
    return rows.length === 0
      ? { ok: true, detail: 'no row refers to a missing parent' }
      : { ok: false, detail: `${rows.length} rows refer to missing parents, e.g. ${rows.slice(0, 5).map((r) => `${r.table} rowid ${r.rowid} → ${r.parent}`).join(', ')}` }
  }))
  for (const dataset of repo.datasets()) {
    const subject = `#${dataset.id} ${dataset.symbol}@${dataset.timeframe}`
    checks.push(timed('dataset_checksum', subject, () => {
      const digest = new BarsDigest()
      for (const [ts, o, h, l, c, v] of repo.iterateBars(dataset.id)) digest.add(ts, o, h, l, c, v)
      const actual = digest.hex()
      return actual === dataset.sha256
        ? { ok: true, detail: `sha256 ${actual} recomputed from ${dataset.rows} stored bars` }
        : { ok: false, detail: `stored sha256 ${dataset.sha256}, recomputed ${actual}` }
    }))
    checks.push(timed('dataset_ohlc_sanity', subject, () => {
      const summary = repo.barsSummary(dataset.id)
      const bad = repo.ohlcViolations(dataset.id)
      const problems: string[] = []
      if (summary.n !== dataset.rows) problems.push(`${summary.n} bars stored, ${dataset.rows} recorded`)
      if (summary.first_ts !== dataset.first_ts || summary.last_ts !== dataset.last_ts) problems.push('first/last timestamps differ from the dataset record')
      if (bad.n > 0) problems.push(`${bad.n} bars break 0 < low ≤ open, close ≤ high or volume ≥ 0 (first at ${new Date(bad.first_ts!).toISOString()})`)
      return problems.length
        ? { ok: false, detail: problems.join('; ') }
        : { ok: true, detail: `${summary.n} bars: prices positive, low ≤ open, close ≤ high, timestamps strictly increasing (primary key)` }
    }))
  }
  const accounts = repo.accounts()
  if (accounts.length === 0) {
    checks.push({ name: 'ledger_reconciliation', subject: null, ok: true, detail: 'no paper account yet: nothing to reconcile', elapsed_ms: 0 })
  }
  for (const account of accounts) {
    checks.push(timed('ledger_reconciliation', `account ${account.id}`, () => reconcile(repo, account.id, account.initial_cash, account.cash)))
  }
  const failed = checks.filter((c) => !c.ok).length
  return {
    ok: failed === 0,
    checked_at: new Date(now).toISOString(),
    summary: { passed: checks.length - failed, failed },
    checks,
  }
}

/** Cash and every position re-derived from the fills alone must equal what is stored, and the cash ledger must agree. */
function reconcile(repo: TradingRepository, accountId: string, initialCash: number, storedCash: number) {
  const problems: string[] = []
  const fills = repo.fillsOf(accountId)
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

  const entries = repo.cashEntriesOf(accountId)
  const ledgerSum = entries.reduce((sum, e) => sum + e.amount, 0)
  if (!close(ledgerSum, storedCash)) problems.push(`cash ledger sums to ${ledgerSum} ≠ stored ${storedCash}`)
  const last = entries.at(-1)
  if (last && !close(last.balance_after, storedCash)) problems.push(`last ledger balance ${last.balance_after} ≠ stored ${storedCash}`)

  const stored = new Map(repo.positions(accountId).map((p) => [p.dataset_id, p]))
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
