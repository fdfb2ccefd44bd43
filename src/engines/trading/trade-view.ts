// The one shape a trade is shown in (tradeSchema in src/trading/schemas.ts), whatever it was read from: the engine's
// Trade (a backtest's answer), a stored trade block (GET /api/v11/runs/{id}), a stored row (its trade pages and CSV).
// Each source only puts its trade in the stored columns' terms; the shown fields are written here alone.
import { TRADE_COLUMNS } from './run-series.js'

type TradeColumn = (typeof TRADE_COLUMNS)[number]

/**
 * A trade in the stored columns' names and units (TRADE_COLUMNS: epoch ms, return_pct in percent), null where it has
 * no exit. The figures (F) are shown as given, so which are null is the source's to say: a stored row's never are,
 * the engine's non-finite ones are (the serializer writes a null figure as 0 but an infinite one as null).
 */
export type TradeRecord<F extends number | null = number | null> = {
  size: F
  entry_bar: number
  exit_bar: number | null
  entry_ts: number
  exit_ts: number | null
  entry_price: F
  exit_price: number | null
  pnl: F
  return_pct: F
  commissions: F
}

/**
 * A trade record from its stored columns' values (`valueOf` answers each, in TRADE_COLUMNS order): where a stored row
 * or a trade block's row becomes the view's record, so the columns and the record's members are matched in one place.
 */
export function tradeRecordOf<F extends number | null>(valueOf: (column: TradeColumn, i: number) => number | null): TradeRecord<F> {
  return Object.fromEntries(TRADE_COLUMNS.map((column, i) => [column, valueOf(column, i)])) as TradeRecord<F>
}

const iso = (ms: number): string => new Date(ms).toISOString()

/** A trade as clients see it: ISO times, open while it has no exit. Members in tradeSchema's order. */
export function tradeView<F extends number | null>(t: TradeRecord<F>) {
  return {
    size: t.size,
    entry_bar: t.entry_bar,
    exit_bar: t.exit_bar,
    entry_time: iso(t.entry_ts),
    exit_time: t.exit_ts === null ? null : iso(t.exit_ts),
    entry_price: t.entry_price,
    exit_price: t.exit_price,
    pnl: t.pnl,
    return_pct: t.return_pct,
    commissions: t.commissions,
    open: t.exit_bar === null,
  }
}
