// The datasets and bars tables (part of the trading repository): a dataset's bars go in batches and come out as typed arrays.
import type { Sql } from '../store/sql.js'
import { inTurns, upTo } from '../sched/turns.js'
import type { Bars } from '../engines/trading/types.js'
import type { DatasetRow, NewDataset } from './rows.js'

export type BarRow = { ts: number; open: number; high: number; low: number; close: number; volume: number }

/** Bars per statement on SQLite: one call into SQLite per batch instead of per bar (7 parameters each). */
const SQLITE_BAR_BATCH = 256
/**
 * Batches written between two turns of the loop: 2048 bars, about 4 ms. The transaction stays open across the turns
 * (the import is all or nothing); a 250k-bar import held the loop 0.5 s in one go.
 */
const SQLITE_BATCHES_PER_TURN = 8
/** Bars per statement on PostgreSQL: one round trip per chunk, the columns sent as seven arrays (unnest). */
const POSTGRES_BAR_CHUNK = 20_000
/**
 * Bars read per statement, as arrays of values (no row objects): about 2 ms of SQLite, after which the loop turns. A
 * miss of the bars cache on a 880k-bar dataset was 50k-row pages back to back, 0.75–1.8 s without a turn.
 */
const BAR_READ_PAGE = 2048
/**
 * Bars per aggregate statement of the audit (count, first and last time, OHLC violations): 8k bars take SQLite
 * 2–4 ms, where the two statements over 880k bars held the loop 165 ms.
 */
const BAR_AUDIT_WINDOW = 8192

const BAR_COLUMNS = 'INSERT INTO bars (dataset_id, ts, open, high, low, close, volume)'
const SQLITE_INSERT_ONE = `${BAR_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?)`
const SQLITE_INSERT_BATCH = `${BAR_COLUMNS} VALUES ${Array.from({ length: SQLITE_BAR_BATCH }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`
const POSTGRES_INSERT_CHUNK = `${BAR_COLUMNS} SELECT CAST(? AS bigint), * FROM unnest(CAST(? AS bigint[]), ` +
  'CAST(? AS double precision[]), CAST(? AS double precision[]), CAST(? AS double precision[]), CAST(? AS double precision[]), ' +
  'CAST(? AS double precision[]))'

const n = (row: { n: number | string } | undefined): number => Number(row?.n ?? 0)

export function createMarketTables(sql: Sql) {
  /** A dataset's bars with from ≤ ts ≤ to in time order, a page at a time, each page its own typed arrays. */
  const barPages = (id: number, from = Number.MIN_SAFE_INTEGER, to = Number.MAX_SAFE_INTEGER): AsyncGenerator<Bars> =>
    inTurns(pagesOf(id, from, to))
  async function* pagesOf(id: number, from: number, to: number): AsyncGenerator<Bars> {
    let after = from
    for (;;) {
      const rows = await sql.values(BAR_PAGE, [id, after, to, BAR_READ_PAGE])
      if (rows.length) yield columnsOf(rows)
      if (rows.length < BAR_READ_PAGE) return
      after = Number(rows[rows.length - 1]![0]) + 1
    }
  }

  /** The first ts of each audit window of a dataset's bars: keyset steps in the primary key (OFFSET reads no row). */
  async function* auditWindows(id: number): AsyncGenerator<{ from: number; before: number }> {
    let from = Number.MIN_SAFE_INTEGER
    for (;;) {
      const next = await sql.get<{ ts: number }>(WINDOW_END, [id, from, BAR_AUDIT_WINDOW])
      const before = next ? Number(next.ts) : Number.MAX_SAFE_INTEGER
      yield { from, before }
      if (!next) return
      from = before
    }
  }

  return {
    /**
     * Inserts a dataset and all its bars; call on a transaction's Sql so a bad bar leaves nothing behind. SQLite takes
     * them through one prepared statement per batch, PostgreSQL as arrays per chunk (a statement's parameters are few).
     */
    async insertDataset(meta: NewDataset, bars: Bars): Promise<DatasetRow> {
      // Ids are never reused (a job or client naming id 19 must never read another's bars): PostgreSQL's identity
      // never goes back; SQLite would give the newest id again after a delete, so it takes the next of the highest
      // ever given (dataset_ids, migration 0021).
      const inserted = await sql.get<{ id: number }>(sql.dialect === 'sqlite'
        ? `INSERT INTO datasets (id, symbol, timeframe, source, rows, first_ts, last_ts, sha256, seed, generator, origin, created_at, quality)
           VALUES ((SELECT last + 1 FROM dataset_ids), @symbol, @timeframe, @source, 0, NULL, NULL, @sha256, @seed, @generator, @origin, @created_at, @quality) RETURNING id`
        : `INSERT INTO datasets (symbol, timeframe, source, rows, first_ts, last_ts, sha256, seed, generator, origin, created_at, quality)
           VALUES (@symbol, @timeframe, @source, 0, NULL, NULL, @sha256, @seed, @generator, @origin, @created_at, @quality) RETURNING id`,
        { ...meta, quality: meta.quality ?? null },
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

    /** Bars of a dataset with from ≤ ts ≤ to, into typed arrays in shared memory, read a page at a time with a loop turn between pages. */
    async loadBars(id: number, from = Number.MIN_SAFE_INTEGER, to = Number.MAX_SAFE_INTEGER): Promise<Bars> {
      const pages: Bars[] = []
      for await (const page of barPages(id, from, to)) pages.push(page)
      return joinPages(pages)
    },
    /** A dataset's bars in time order, a page at a time. */
    barPages: (id: number): AsyncGenerator<Bars> => barPages(id),
    /**
     * What verify checks of a dataset's stored bars, summed window by window with a loop turn between: how many, the
     * first and last time, and the bars breaking 0 < low ≤ open, close ≤ high, volume ≥ 0 (how many, the first).
     */
    async barsAudit(id: number) {
      const audit = { n: 0, first_ts: null as number | null, last_ts: null as number | null, violations: { n: 0, first_ts: null as number | null } }
      for await (const { from, before } of inTurns(auditWindows(id))) {
        const row = (await sql.get<{ n: number; first_ts: number | null; last_ts: number | null; bad: number | null; first_bad: number | null }>(
          AUDIT_WINDOW, [id, from, before]))!
        audit.n += n(row)
        audit.first_ts ??= nullableNumber(row.first_ts)
        if (row.last_ts !== null) audit.last_ts = Number(row.last_ts)
        audit.violations.n += Number(row.bad ?? 0)
        audit.violations.first_ts ??= nullableNumber(row.first_bad)
      }
      return audit
    },
    lastBar: (id: number): Promise<BarRow | undefined> =>
      sql.get<BarRow>('SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? ORDER BY ts DESC LIMIT 1', [id]),
  }
}

const nullableNumber = (value: number | string | null): number | null => (value === null ? null : Number(value))

const BAR_PAGE = 'SELECT ts, open, high, low, close, volume FROM bars WHERE dataset_id = ? AND ts >= ? AND ts <= ? ORDER BY ts LIMIT ?'
/** The ts that starts the next window, or no row for the last one. */
const WINDOW_END = 'SELECT ts FROM bars WHERE dataset_id = ? AND ts >= ? ORDER BY ts LIMIT 1 OFFSET ?'
const BROKEN = `NOT (open > 0 AND low > 0 AND close > 0 AND volume >= 0
  AND low <= open AND low <= close AND open <= high AND close <= high)`
const AUDIT_WINDOW = `SELECT count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts,
  sum(CASE WHEN ${BROKEN} THEN 1 ELSE 0 END) AS bad, min(CASE WHEN ${BROKEN} THEN ts END) AS first_bad
  FROM bars WHERE dataset_id = ? AND ts >= ? AND ts < ?`

/** Rows of ts, open, high, low, close, volume as six typed arrays. */
function columnsOf(rows: readonly unknown[][]): Bars {
  const count = rows.length
  const bars = emptyBars(count)
  for (let i = 0; i < count; i++) {
    const row = rows[i] as number[]
    bars.ts[i] = Number(row[0]); bars.open[i] = row[1]!; bars.high[i] = row[2]!
    bars.low[i] = row[3]!; bars.close[i] = row[4]!; bars.volume[i] = row[5]!
  }
  return bars
}

/**
 * Pages in order as one set of arrays, a column at a time with a loop turn between (880k bars: 7 MB a column). In
 * shared memory: a mill task reads them without a copy, where cloning a 250k-bar payload took the loop 7 ms a task.
 */
async function joinPages(pages: readonly Bars[]): Promise<Bars> {
  const count = pages.reduce((sum, page) => sum + page.ts.length, 0)
  const joined = {} as Bars
  for await (const column of inTurns(BAR_FIELDS)) {
    const values = new Float64Array(new SharedArrayBuffer(count * Float64Array.BYTES_PER_ELEMENT))
    let at = 0
    for (const page of pages) {
      values.set(page[column], at)
      at += page[column].length
    }
    joined[column] = values
  }
  return joined
}

const BAR_FIELDS = ['ts', 'open', 'high', 'low', 'close', 'volume'] as const

const emptyBars = (count: number): Bars => ({
  ts: new Float64Array(count), open: new Float64Array(count), high: new Float64Array(count),
  low: new Float64Array(count), close: new Float64Array(count), volume: new Float64Array(count),
})

async function insertBarsInBatches(sql: Sql, id: number, bars: Bars): Promise<void> {
  const count = bars.ts.length
  const batch = new Array<number>(SQLITE_BAR_BATCH * 7)
  const whole = count - (count % SQLITE_BAR_BATCH)
  const perTurn = SQLITE_BAR_BATCH * SQLITE_BATCHES_PER_TURN
  for await (const start of inTurns(upTo(whole, perTurn))) {
    for (let i = start; i < Math.min(start + perTurn, whole); i += SQLITE_BAR_BATCH) {
      for (let j = 0; j < SQLITE_BAR_BATCH; j++) {
        const k = i + j
        const o = j * 7
        batch[o] = id; batch[o + 1] = bars.ts[k]!; batch[o + 2] = bars.open[k]!; batch[o + 3] = bars.high[k]!
        batch[o + 4] = bars.low[k]!; batch[o + 5] = bars.close[k]!; batch[o + 6] = bars.volume[k]!
      }
      await sql.run(SQLITE_INSERT_BATCH, batch)
    }
  }
  for (let i = whole; i < count; i++) {
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
