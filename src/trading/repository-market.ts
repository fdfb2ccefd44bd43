// The datasets and bars tables (part of the trading repository): a dataset's bars go in batches and come out as typed arrays.
import type { Db } from '../store/index.js'
import type { Bars } from '../engines/trading/types.js'
import type { DatasetRow, NewDataset } from './rows.js'

type BarTuple = [number, number, number, number, number, number]

const BAR_BATCH = 256

export function createMarketTables(db: Db) {
  const s = {
    insertDataset: db.prepare<[NewDataset]>(
      `INSERT INTO datasets (symbol, timeframe, source, rows, first_ts, last_ts, sha256, seed, generator, origin, created_at)
       VALUES (@symbol, @timeframe, @source, 0, NULL, NULL, @sha256, @seed, @generator, @origin, @created_at)`,
    ),
    finishDataset: db.prepare<[number, number | null, number | null, number]>(
      'UPDATE datasets SET rows = ?, first_ts = ?, last_ts = ? WHERE id = ?',
    ),
    insertBar: db.prepare<number[]>(
      'INSERT INTO bars (dataset_id, ts, open, high, low, close, volume) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    // Many rows per statement: one call into SQLite per batch instead of per bar.
    insertBars: db.prepare<number[]>(
      `INSERT INTO bars (dataset_id, ts, open, high, low, close, volume) VALUES ${
        Array.from({ length: BAR_BATCH }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    ),
    datasets: db.prepare<[], DatasetRow>('SELECT * FROM datasets ORDER BY id'),
    datasetById: db.prepare<[number], DatasetRow>('SELECT * FROM datasets WHERE id = ?'),
    datasetsBySymbol: db.prepare<[string], DatasetRow>('SELECT * FROM datasets WHERE symbol = ? COLLATE NOCASE ORDER BY id'),
    datasetByKey: db.prepare<[string, string], DatasetRow>('SELECT * FROM datasets WHERE symbol = ? AND timeframe = ?'),
    datasetCount: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM datasets'),
    barsCount: db.prepare<[number, number, number], { n: number }>(
      'SELECT count(*) AS n FROM bars WHERE dataset_id = ? AND ts >= ? AND ts <= ?',
    ),
    barsRange: db.prepare<[number, number, number], BarTuple>(
      'SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? AND ts >= ? AND ts <= ? ORDER BY ts',
    ).raw(true),
    barsSummary: db.prepare<[number], { n: number; first_ts: number | null; last_ts: number | null }>(
      'SELECT count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts FROM bars WHERE dataset_id = ?',
    ),
    ohlcViolations: db.prepare<[number], { n: number; first_ts: number | null }>(
      `SELECT count(*) AS n, min(ts) AS first_ts FROM bars WHERE dataset_id = ? AND NOT (
         open > 0 AND low > 0 AND close > 0 AND volume >= 0
         AND low <= open AND low <= close AND open <= high AND close <= high)`,
    ),
    lastBar: db.prepare<[number], { ts: number; open: number; high: number; low: number; close: number; volume: number }>(
      'SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? ORDER BY ts DESC LIMIT 1',
    ),
  }

  return {
    /** Inserts a dataset and all its bars; call inside a transaction so a bad bar leaves nothing behind. */
    insertDataset(meta: NewDataset, bars: Bars): DatasetRow {
      const id = Number(s.insertDataset.run(meta).lastInsertRowid)
      const n = bars.ts.length
      const batch = new Array<number>(BAR_BATCH * 7)
      let i = 0
      for (; i + BAR_BATCH <= n; i += BAR_BATCH) {
        for (let j = 0; j < BAR_BATCH; j++) {
          const k = i + j
          const o = j * 7
          batch[o] = id; batch[o + 1] = bars.ts[k]!; batch[o + 2] = bars.open[k]!; batch[o + 3] = bars.high[k]!
          batch[o + 4] = bars.low[k]!; batch[o + 5] = bars.close[k]!; batch[o + 6] = bars.volume[k]!
        }
        s.insertBars.run(...batch)
      }
      for (; i < n; i++) {
        s.insertBar.run(id, bars.ts[i]!, bars.open[i]!, bars.high[i]!, bars.low[i]!, bars.close[i]!, bars.volume[i]!)
      }
      s.finishDataset.run(n, n > 0 ? bars.ts[0]! : null, n > 0 ? bars.ts[n - 1]! : null, id)
      return s.datasetById.get(id)!
    },
    datasets: (): DatasetRow[] => s.datasets.all(),
    datasetById: (id: number): DatasetRow | undefined => s.datasetById.get(id),
    datasetsBySymbol: (symbol: string): DatasetRow[] => s.datasetsBySymbol.all(symbol),
    datasetByKey: (symbol: string, timeframe: string): DatasetRow | undefined => s.datasetByKey.get(symbol, timeframe),
    datasetCount: (): number => s.datasetCount.get()!.n,

    /** Bars of a dataset with from ≤ ts ≤ to, into typed arrays. */
    loadBars(id: number, from = Number.MIN_SAFE_INTEGER, to = Number.MAX_SAFE_INTEGER): Bars {
      const n = s.barsCount.get(id, from, to)!.n
      const bars: Bars = {
        ts: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n),
        low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n),
      }
      let i = 0
      for (const row of s.barsRange.iterate(id, from, to)) {
        if (i >= n) break
        bars.ts[i] = row[0]; bars.open[i] = row[1]; bars.high[i] = row[2]
        bars.low[i] = row[3]; bars.close[i] = row[4]; bars.volume[i] = row[5]
        i++
      }
      return bars
    },
    /** Streams a dataset's bars in time order as [ts, open, high, low, close, volume]. */
    iterateBars: (id: number): IterableIterator<BarTuple> =>
      s.barsRange.iterate(id, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    barsSummary: (id: number) => s.barsSummary.get(id)!,
    ohlcViolations: (id: number) => s.ohlcViolations.get(id)!,
    lastBar: (id: number) => s.lastBar.get(id),
  }
}
