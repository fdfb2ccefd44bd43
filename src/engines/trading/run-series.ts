// A run's series in the forms they are stored in: the equity curve in chunks of base64 float64 pairs (with the running
// peak before each, so any chunk's drawdown is known alone), and trades as one float64 column block.
import type { Trade } from './types.js'

/** Points per stored chunk of an equity curve. */
export const EQUITY_CHUNK_POINTS = 2048

export interface EquityChunk {
  chunk: number
  points: number
  /** Running peak of equity before the chunk's first point (−Infinity before the first chunk, stored as 0). */
  peakBefore: number
  /** base64 of little-endian float64 pairs (epoch ms, equity). */
  data: string
}

export function equityChunks(ts: Float64Array, equity: Float64Array, size = EQUITY_CHUNK_POINTS): EquityChunk[] {
  const out: EquityChunk[] = []
  let peak = 0
  for (let from = 0, chunk = 0; from < equity.length; from += size, chunk++) {
    const to = Math.min(from + size, equity.length)
    const pairs = new Float64Array(2 * (to - from))
    const peakBefore = peak
    for (let i = from; i < to; i++) {
      pairs[2 * (i - from)] = ts[i]!
      pairs[2 * (i - from) + 1] = equity[i]!
      if (equity[i]! > peak) peak = equity[i]!
    }
    out.push({ chunk, points: to - from, peakBefore, data: Buffer.from(pairs.buffer).toString('base64') })
  }
  return out
}

/** The (epoch ms, equity) pairs of a stored chunk. */
export function decodeEquityChunk(data: string): Float64Array {
  const bytes = Buffer.from(data, 'base64')
  const copy = new Uint8Array(bytes.length)
  copy.set(bytes)
  return new Float64Array(copy.buffer, 0, copy.length >> 3)
}

/** Columns of a trade in the stored block, in order. */
export const TRADE_COLUMNS = ['size', 'entry_bar', 'exit_bar', 'entry_ts', 'exit_ts', 'entry_price', 'exit_price', 'pnl', 'return_pct', 'commissions'] as const
const WIDTH = TRADE_COLUMNS.length

/** Trades as one float64 block (NaN for an open trade's exit), return_pct in percent: it moves between threads uncopied. */
export function tradeBlock(trades: readonly Trade[]): Float64Array {
  const out = new Float64Array(trades.length * WIDTH)
  trades.forEach((t, k) => {
    out.set([
      t.size, t.entryBar, t.exitBar ?? NaN, t.entryTime, t.exitTime ?? NaN, t.entryPrice, t.exitPrice ?? NaN,
      t.pnl, t.returnPct * 100, t.commissions,
    ], k * WIDTH)
  })
  return out
}

/** The rows of a trade block, each its TRADE_COLUMNS in order (null for NaN). */
export function tradeRows(block: Float64Array): Array<Array<number | null>> {
  const rows: Array<Array<number | null>> = []
  for (let k = 0; k < block.length; k += WIDTH) {
    const row: Array<number | null> = []
    for (let c = 0; c < WIDTH; c++) {
      const v = block[k + c]!
      row.push(Number.isNaN(v) ? null : v)
    }
    rows.push(row)
  }
  return rows
}

/** Compounded return of each calendar month (UTC) of an equity curve, in %, from the previous month's last value. */
export function monthlyReturns(ts: Float64Array, equity: Float64Array): Array<{ month: string; return_pct: number }> {
  const out: Array<{ month: string; return_pct: number }> = []
  if (equity.length === 0) return out
  let base = equity[0]!
  for (let i = 0; i < equity.length; i++) {
    const d = new Date(ts[i]!)
    const next = i + 1 < equity.length ? new Date(ts[i + 1]!) : null
    if (next && next.getUTCFullYear() === d.getUTCFullYear() && next.getUTCMonth() === d.getUTCMonth()) continue
    out.push({ month: d.toISOString().slice(0, 7), return_pct: (equity[i]! / base - 1) * 100 })
    base = equity[i]!
  }
  return out
}
