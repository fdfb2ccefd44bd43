// The bulky parts of a backtest's answer written as JSON text where the engine ran: a 250k-bar equity curve and
// thousands of trades cost the event loop 30–100 ms in one stretch as arrays built there (tuples, trade views with
// ISO times), and more to clone back and write. Written exactly as fast-json-stringify writes them from the answer
// schema (src/trading/schemas.ts: `tradeSchema`, `equitySeries.points`), which src/trading/answer-text.test.ts checks
// on real backtests. The text is ASCII (numbers, ISO times, literals), written straight into the bytes that move.
import type { Trade } from '../../engines/trading/types.js'
import { AsciiBytes } from '../ascii-bytes.js'

/** A `z.number()` member: the trade view made non-finite figures null, which fast-json-stringify writes as 0. */
const figure = (x: number): string => (Number.isFinite(x) ? '' + x : '0')
/** A nullable number: non-finite is null. */
const figureOrNull = (x: number | null): string => (x !== null && Number.isFinite(x) ? '' + x : 'null')
const isoText = (ms: number): string => `"${new Date(ms).toISOString()}"`

/** About what a trade and a point take, to reserve the bytes once. */
const TRADE_BYTES = 300
const POINT_BYTES = 36

/** The answer's `trades` array: each trade's members in the schema's order. */
export function tradesBytes(trades: readonly Trade[]): Uint8Array {
  const out = new AsciiBytes(2 + trades.length * TRADE_BYTES)
  out.put('[')
  for (let k = 0; k < trades.length; k++) {
    const t = trades[k]!
    out.put(k === 0 ? '{"size":' : ',{"size":')
    out.put(figure(t.size))
    out.put(',"entry_bar":')
    out.put('' + t.entryBar)
    out.put(',"exit_bar":')
    out.put(t.exitBar === null ? 'null' : '' + t.exitBar)
    out.put(',"entry_time":')
    out.put(isoText(t.entryTime))
    out.put(',"exit_time":')
    out.put(t.exitTime === null ? 'null' : isoText(t.exitTime))
    out.put(',"entry_price":')
    out.put(figure(t.entryPrice))
    out.put(',"exit_price":')
    out.put(figureOrNull(t.exitPrice))
    out.put(',"pnl":')
    out.put(figure(t.pnl))
    out.put(',"return_pct":')
    out.put(figure(t.returnPct * 100))
    out.put(',"commissions":')
    out.put(figure(t.commissions))
    out.put(t.exitBar === null ? ',"open":true}' : ',"open":false}')
  }
  out.put(']')
  return out.done()
}

/**
 * The answer's `equity.points`: [epoch ms, equity] pairs at the kept indices. The engine's equity is finite; were a
 * figure not, fast-json-stringify would fail the whole answer, where this writes null.
 */
export function pointsBytes(ts: Float64Array, values: Float64Array, kept: Uint32Array): Uint8Array {
  const out = new AsciiBytes(2 + kept.length * POINT_BYTES)
  out.put('[')
  for (let k = 0; k < kept.length; k++) {
    const i = kept[k]!
    out.put(k === 0 ? '[' : ',[')
    out.put(figureOrNull(ts[i]!))
    out.put(',')
    out.put(figureOrNull(values[i]!))
    out.put(']')
  }
  out.put(']')
  return out.done()
}
