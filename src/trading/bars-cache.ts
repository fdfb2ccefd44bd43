// The bars of stored datasets, read from the database once and kept in a bounded least-recently-used cache.
import type { Bars } from '../engines/trading/types.js'
import type { DatasetRow, TradingRepository } from './repository.js'

/** Six Float64Arrays per bar: ts, open, high, low, close, volume. */
const BYTES_PER_BAR = 6 * 8

export type BarsCache = ReturnType<typeof createBarsCache>

/**
 * Datasets never change after import (a repeat import with other bars is refused), so their bars are read from
 * the database once and kept, least recently used first out, within `limitBytes` (BARS_CACHE_BYTES). Keyed by id and
 * checksum. Bounded by bytes, not bars: two 880k-bar datasets (84 MB) both stay hot, where a 1.5M-bar limit made them
 * evict each other and every backtest re-read 0.8 s of rows. A miss costs the loop a few ms at a time: the repository
 * reads 2048 bars per statement as arrays of values and lets the loop turn between pages.
 */
export function createBarsCache(repo: TradingRepository, limitBytes: number) {
  const limit = Math.floor(limitBytes / BYTES_PER_BAR)
  const entries = new Map<string, Bars>()
  /** Reads under way, so requests arriving together for one dataset share one read. */
  const loading = new Map<string, Promise<Bars>>()
  let held = 0

  function keep(key: string, bars: Bars): void {
    if (bars.ts.length > limit) return
    entries.set(key, bars)
    held += bars.ts.length
    for (const [oldKey, old] of entries) {
      if (held <= limit) break
      entries.delete(oldKey)
      held -= old.ts.length
    }
  }

  async function load(dataset: DatasetRow, key: string): Promise<Bars> {
    let pending = loading.get(key)
    if (!pending) {
      pending = repo.loadBars(dataset.id)
      loading.set(key, pending)
      try {
        keep(key, await pending)
      } finally {
        loading.delete(key)
      }
    }
    return pending
  }

  return {
    async get(dataset: DatasetRow, range: { from: number; to: number } | null): Promise<Bars> {
      const key = `${dataset.id}:${dataset.sha256}`
      let bars = entries.get(key)
      if (bars) {
        entries.delete(key)
        entries.set(key, bars)
      } else {
        bars = await load(dataset, key)
      }
      return range ? sliceBars(bars, range.from, range.to) : bars
    },
  }
}

/**
 * The bars with from ≤ ts ≤ to, as views: the repository reads bars into shared memory, so a view goes to the mill
 * as a reference to it, where a copy was made twice (the slice, then its clone to the worker).
 */
function sliceBars(bars: Bars, from: number, to: number): Bars {
  const lo = firstIndex(bars.ts, (t) => t >= from)
  const hi = firstIndex(bars.ts, (t) => t > to)
  return {
    ts: bars.ts.subarray(lo, hi), open: bars.open.subarray(lo, hi), high: bars.high.subarray(lo, hi),
    low: bars.low.subarray(lo, hi), close: bars.close.subarray(lo, hi), volume: bars.volume.subarray(lo, hi),
  }
}

/** First index of sorted values where `past` holds (it holds for all later ones too), or the length. */
function firstIndex(values: Float64Array, past: (value: number) => boolean): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (past(values[mid]!)) hi = mid
    else lo = mid + 1
  }
  return lo
}
