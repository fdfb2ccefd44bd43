// The datasets and bars tables (part of the trading repository): a dataset's bars go in batches and come out as typed arrays.
import type { Sql } from '../store/sql.js'
import type { Bars } from '../engines/trading/types.js'
import type { DatasetRow, NewDataset } from './rows.js'

export type BarRow = { ts: number; open: number; high: number; low: number; close: number; volume: number }

/** Bars per statement on SQLite: one call into SQLite per batch instead of per bar (7 parameters each). */
const SQLITE_BAR_BATCH = 256
/** Bars per statement on PostgreSQL: one round trip per chunk, the columns sent as seven arrays (unnest). */
const POSTGRES_BAR_CHUNK = 20_000
/** Bars read per statement: a large dataset is read in pages, never as one result of hundreds of thousands of rows. */
const BAR_READ_PAGE = 50_000

const BAR_COLUMNS = 'INSERT INTO bars (dataset_id, ts, open, high, low, close, volume)'
const SQLITE_INSERT_ONE = `${BAR_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?)`
const SQLITE_INSERT_BATCH = `${BAR_COLUMNS} VALUES ${Array.from({ length: SQLITE_BAR_BATCH }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`
const POSTGRES_INSERT_CHUNK = `${BAR_COLUMNS} SELECT CAST(? AS bigint), * FROM unnest(CAST(? AS bigint[]), ` +
  'CAST(? AS double precision[]), CAST(? AS double precision[]), CAST(? AS double precision[]), CAST(? AS double precision[]), ' +
  'CAST(? AS double precision[]))'

const n = (row: { n: number | string } | undefined): number => Number(row?.n ?? 0)

export function createMarketTables(sql: Sql) {
  const barsPage = (id: number, from: number, to: number, limit: number) => sql.all<BarRow>(
    'SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? AND ts >= ? AND ts <= ? ORDER BY ts LIMIT ?',
    [id, from, to, limit],
  )

  /** A dataset's bars from `from` to `to` in time order, a page of rows at a time. */
  async function* barPages(id: number, from = Number.MIN_SAFE_INTEGER, to = Number.MAX_SAFE_INTEGER): AsyncGenerator<BarRow[]> {
    let after = from
    for (;;) {
      const page = await barsPage(id, after, to, BAR_READ_PAGE)
      if (page.length) yield page
      if (page.length < BAR_READ_PAGE) return
      after = page[page.length - 1]!.ts + 1
    }
  }

  return {
    /**
     * Inserts a dataset and all its bars; call on a transaction's Sql so a bad bar leaves nothing behind. SQLite takes
     * them through one prepared statement per batch, PostgreSQL as arrays per chunk (a statement's parameters are few).
     */
    async insertDataset(meta: NewDataset, bars: Bars): Promise<DatasetRow> {
      const inserted = await sql.get<{ id: number }>(
        `INSERT INTO datasets (symbol, timeframe, source, rows, first_ts, last_ts, sha256, seed, generator, origin, created_at)
         VALUES (@symbol, @timeframe, @source, 0, NULL, NULL, @sha256, @seed, @generator, @origin, @created_at) RETURNING id`,
        meta,
      )
      const id = Number(inserted!.id)
      const count = bars.ts.length
      if (sql.dialect === 'postgres') await insertBarsByArrays(sql, id, bars)
      else await insertBarsInBatches(sql, id, bars)
      await sql.run('UPDATE datasets SET rows = ?, first_ts = ?, last_ts = ? WHERE id = ?',
        [count, count > 0 ? bars.ts[0]! : null, count > 0 ? bars.ts[count - 1]! : null, id])
      return (await sql.get<DatasetRow>('SELECT * FROM datasets WHERE id = ?', [id]))!
    },
    datasets: (): Promise<DatasetRow[]> => sql.all<DatasetRow>('SELECT * FROM datasets ORDER BY id'),
    datasetById: (id: number): Promise<DatasetRow | undefined> => sql.get<DatasetRow>('SELECT * FROM datasets WHERE id = ?', [id]),
    /** Any case (symbols are ASCII, so lower() agrees on both databases). */
    datasetsBySymbol: (symbol: string): Promise<DatasetRow[]> =>
      sql.all<DatasetRow>('SELECT * FROM datasets WHERE lower(symbol) = lower(?) ORDER BY id', [symbol]),
    datasetByKey: (symbol: string, timeframe: string): Promise<DatasetRow | undefined> =>
      sql.get<DatasetRow>('SELECT * FROM datasets WHERE symbol = ? AND timeframe = ?', [symbol, timeframe]),
    datasetCount: async (): Promise<number> => n(await sql.get<{ n: number }>('SELECT count(*) AS n FROM datasets')),

    /** Bars of a dataset with from ≤ ts ≤ to, into typed arrays. */
    async loadBars(id: number, from = Number.MIN_SAFE_INTEGER, to = Number.MAX_SAFE_INTEGER): Promise<Bars> {
      const count = n(await sql.get<{ n: number }>('SELECT count(*) AS n FROM bars WHERE dataset_id = ? AND ts >= ? AND ts <= ?', [id, from, to]))
      const bars: Bars = {
        ts: new Float64Array(count), open: new Float64Array(count), high: new Float64Array(count),
        low: new Float64Array(count), close: new Float64Array(count), volume: new Float64Array(count),
      }
      let i = 0
      for await (const page of barPages(id, from, to)) {
        for (const row of page) {
          if (i >= count) break
          bars.ts[i] = Number(row.ts); bars.open[i] = row.open; bars.high[i] = row.high
          bars.low[i] = row.low; bars.close[i] = row.close; bars.volume[i] = row.volume
          i++
        }
      }
      return bars
    },
    /** A dataset's bars in time order, a page at a time. */
    barPages: (id: number): AsyncGenerator<BarRow[]> => barPages(id),
    barsSummary: async (id: number) => {
      const row = (await sql.get<{ n: number; first_ts: number | null; last_ts: number | null }>(
        'SELECT count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts FROM bars WHERE dataset_id = ?', [id],
      ))!
      return { n: n(row), first_ts: nullableNumber(row.first_ts), last_ts: nullableNumber(row.last_ts) }
    },
    ohlcViolations: async (id: number) => {
      const row = (await sql.get<{ n: number; first_ts: number | null }>(
        `SELECT count(*) AS n, min(ts) AS first_ts FROM bars WHERE dataset_id = ? AND NOT (
           open > 0 AND low > 0 AND close > 0 AND volume >= 0
           AND low <= open AND low <= close AND open <= high AND close <= high)`, [id],
      ))!
      return { n: n(row), first_ts: nullableNumber(row.first_ts) }
    },
    lastBar: (id: number): Promise<BarRow | undefined> =>
      sql.get<BarRow>('SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? ORDER BY ts DESC LIMIT 1', [id]),
  }
}

const nullableNumber = (value: number | string | null): number | null => (value === null ? null : Number(value))

async function insertBarsInBatches(sql: Sql, id: number, bars: Bars): Promise<void> {
  const count = bars.ts.length
  const batch = new Array<number>(SQLITE_BAR_BATCH * 7)
  let i = 0
  for (; i + SQLITE_BAR_BATCH <= count; i += SQLITE_BAR_BATCH) {
    for (let j = 0; j < SQLITE_BAR_BATCH; j++) {
      const k = i + j
      const o = j * 7
      batch[o] = id; batch[o + 1] = bars.ts[k]!; batch[o + 2] = bars.open[k]!; batch[o + 3] = bars.high[k]!
      batch[o + 4] = bars.low[k]!; batch[o + 5] = bars.close[k]!; batch[o + 6] = bars.volume[k]!
    }
    await sql.run(SQLITE_INSERT_BATCH, batch)
  }
  for (; i < count; i++) {
    await sql.run(SQLITE_INSERT_ONE, [id, bars.ts[i]!, bars.open[i]!, bars.high[i]!, bars.low[i]!, bars.close[i]!, bars.volume[i]!])
  }
}

async function insertBarsByArrays(sql: Sql, id: number, bars: Bars): Promise<void> {
  const columns = [bars.ts, bars.open, bars.high, bars.low, bars.close, bars.volume]
  for (let start = 0; start < bars.ts.length; start += POSTGRES_BAR_CHUNK) {
    const end = Math.min(start + POSTGRES_BAR_CHUNK, bars.ts.length)
    await sql.run(POSTGRES_INSERT_CHUNK, [id, ...columns.map((column) => Array.from(column.subarray(start, end)))])
  }
}
