// The bulky parts of a backtest's answer written as JSON text where the engine ran: a 250k-bar equity curve and
// thousands of trades cost the event loop 30–40 ms in one stretch as arrays built there (tuples, trade views with ISO
// times), and more to clone back, write and parse. Written exactly as fast-json-stringify writes them from the
// answer schema (src/trading/schemas.ts: `tradeSchema`, `equitySeries.points`), which src/trading/answer-text.test.ts
// checks on real backtests. The text is ASCII (numbers, ISO times, literals), so its bytes are its characters.
import type { Trade } from '../../engines/trading/types.js'

/** A `z.number()` member: the trade view made non-finite figures null, which fast-json-stringify writes as 0. */
const figure = (x: number): string => (Number.isFinite(x) ? '' + x : '0')
/** A nullable number: non-finite is null. */
const figureOrNull = (x: number | null): string => (x !== null && Number.isFinite(x) ? '' + x : 'null')
const isoText = (ms: number): string => `"${new Date(ms).toISOString()}"`

/** One trade as the answer's `tradeSchema` writes it: its members in the schema's order. */
function tradeText(t: Trade): string {
  return `{"size":${figure(t.size)},"entry_bar":${t.entryBar},"exit_bar":${t.exitBar === null ? 'null' : t.exitBar}` +
    `,"entry_time":${isoText(t.entryTime)},"exit_time":${t.exitTime === null ? 'null' : isoText(t.exitTime)}` +
    `,"entry_price":${figure(t.entryPrice)},"exit_price":${figureOrNull(t.exitPrice)},"pnl":${figure(t.pnl)}` +
    `,"return_pct":${figure(t.returnPct * 100)},"commissions":${figure(t.commissions)},"open":${t.exitBar === null}}`
}

/** The answer's `trades` array. */
export function tradesText(trades: readonly Trade[]): string {
  return `[${trades.map(tradeText).join(',')}]`
}

/**
 * The answer's `equity.points`: [epoch ms, equity] pairs at the kept indices. The engine's equity is finite; were a
 * figure not, fast-json-stringify would fail the whole answer, where this writes null.
 */
export function pointsText(ts: Float64Array, values: Float64Array, kept: Uint32Array): string {
  const items = new Array<string>(kept.length)
  for (let k = 0; k < kept.length; k++) {
    const i = kept[k]!
    items[k] = `[${figureOrNull(ts[i]!)},${figureOrNull(values[i]!)}]`
  }
  return `[${items.join(',')}]`
}
