// Turning engine results into JSON answers: finite numbers or null, ISO times, downsampled curves.
import type { Stats, Trade } from '../engines/trading/types.js'

/** Non-finite numbers (a ratio over zero, an empty distribution) become null, at any depth. */
export function finite<T>(value: T): T {
  if (typeof value === 'number') return (Number.isFinite(value) ? value : null) as T
  if (Array.isArray(value)) return value.map(finite) as T
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = finite(v)
    return out as T
  }
  return value
}

export const iso = (ms: number): string => new Date(ms).toISOString()

export type StatsView = Omit<Stats, 'start' | 'end'> & { start: string; end: string }

export function statsView(stats: Stats): StatsView {
  return { ...finite(stats), start: iso(stats.start), end: iso(stats.end) }
}

export function tradeView(trade: Trade) {
  return finite({
    size: trade.size,
    entry_bar: trade.entryBar,
    exit_bar: trade.exitBar,
    entry_time: iso(trade.entryTime),
    exit_time: trade.exitTime === null ? null : iso(trade.exitTime),
    entry_price: trade.entryPrice,
    exit_price: trade.exitPrice,
    pnl: trade.pnl,
    return_pct: trade.returnPct * 100,
    commissions: trade.commissions,
    open: trade.exitBar === null,
  })
}

/**
 * At most `maxPoints` [ts, value] pairs: the series is cut into maxPoints/2 buckets and each keeps its lowest and
 * highest point in time order, so peaks and drawdowns survive; the first and last points are always kept.
 */
export function downsample(ts: Float64Array, values: Float64Array, maxPoints: number): Array<[number, number]> {
  const n = values.length
  if (n <= maxPoints) return Array.from({ length: n }, (_, i) => [ts[i]!, values[i]!] as [number, number])
  const buckets = Math.max(1, Math.floor((maxPoints - 2) / 2))
  const out: Array<[number, number]> = [[ts[0]!, values[0]!]]
  const inner = n - 2
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor((b * inner) / buckets)
    const to = 1 + Math.floor(((b + 1) * inner) / buckets)
    if (to <= from) continue
    let lo = from
    let hi = from
    for (let i = from; i < to; i++) {
      if (values[i]! < values[lo]!) lo = i
      if (values[i]! > values[hi]!) hi = i
    }
    const first = Math.min(lo, hi)
    const second = Math.max(lo, hi)
    out.push([ts[first]!, values[first]!])
    if (second !== first) out.push([ts[second]!, values[second]!])
  }
  out.push([ts[n - 1]!, values[n - 1]!])
  return out
}
