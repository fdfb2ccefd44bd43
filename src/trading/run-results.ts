// A stored run's trades and equity curve read back: a page at a time as JSON (keyset cursors), or whole as CSV
// streamed a page at a time (a 250k-point curve is never one string on the loop).
import { Readable } from 'node:stream'
import { encodeCursor, pageAnswer, pagedList, type PageQuery } from '../http/paging.js'
import { Refusal } from '../http/refusal.js'
import { decodeEquityChunk, EQUITY_CHUNK_POINTS, TRADE_COLUMNS } from '../engines/trading/run-series.js'
import { tradeRecordOf, tradeView, type TradeRecord } from '../engines/trading/trade-view.js'
import { iso } from './present.js'
import { nextTurn } from '../sched/turns.js'
import type { ReadableRun } from './run-access.js'
import type { RunTradeRow, RunEquityRow } from './repository-runs.js'
import type { TradingRepository } from './repository.js'

interface EquityPoint {
  i: number
  ts: number
  equity: number
  drawdown_pct: number
}

const tradeList = pagedList<RunTradeRow>('run_trades', ['integer'], (t) => [t.seq])
const equityList = pagedList<EquityPoint>('run_equity', ['integer'], (p) => [p.i])

/** The cursor of the run's trades after the first `shown` (seq is 1-based): a backtest answer's trades_next_cursor. */
export const tradesCursorAfter = (shown: number): string => encodeCursor(tradeList.name, [shown])

/**
 * Rows written per step of a CSV download, each step in a turn of the loop of its own: a row costs the loop a few
 * microseconds (its ISO times), and a 2048-point chunk of the curve written in one go held it 8–25 ms, 130 on a busy
 * machine. The stream pulls the next step only as the client takes what was written (Readable.from under a pipe).
 */
const CSV_TRADES_STEP = 250
const CSV_POINTS_STEP = 512

/** A stored row in numbers, as the trade view and the CSV take it: a driver may answer a BIGINT (a trade's times) as text. */
const storedTrade = (t: RunTradeRow): TradeRecord<number> => tradeRecordOf((c) => (t[c] === null ? null : Number(t[c])))

/** A trade of a page: the one trade view, numbered. */
export const pageTrade = (t: RunTradeRow) => ({ seq: Number(t.seq), ...tradeView(storedTrade(t)) })

const pointView = (p: EquityPoint) => ({ ...p, time: iso(p.ts) })

/**
 * Why a run's results are not stored, when they are not whole: `pending` (being written, or interrupted and to be
 * written again by the host's sweep) or `given_up` (computed again they differed, or could not be computed). Null once
 * whole, or for a run stored without any.
 */
export function resultsNotStored(run: ReadableRun): { state: 'pending' | 'given_up'; note: string } | null {
  if (run.results_writer === null) return null
  return Number(run.results_claimed_at ?? 0) === 0
    ? { state: 'given_up', note: `the results of run ${run.id} are not stored: their writing was interrupted and computing the run again did not ` +
        `give its statistics; POST /api/v11/runs/${run.id}/replay says how they differ` }
    : { state: 'pending', note: `the results of run ${run.id} are not stored yet: they are being written, or their writing was interrupted and ` +
        'the host writes them again from the run\'s inputs; ask again shortly' }
}

/** A run that keeps trades and a curve (backtests stored since they are kept), whole; others are refused with the reason. */
async function backtestWithResults(repo: TradingRepository, run: ReadableRun, what: 'trades' | 'equity'): Promise<void> {
  const id = run.id
  if (run.kind !== 'backtest') throw new Refusal('not_found', `run ${id} is a ${run.kind} run: only backtests have ${what}`)
  const missing = resultsNotStored(run)
  if (missing) throw new Refusal('not_found', missing.note, { hints: { results: 'not_stored', state: missing.state }, ...(missing.state === 'pending' ? { retryAfterS: 1 } : {}) })
  if ((await repo.runEquityChunks(id, 0, 1)).length === 0) {
    throw new Refusal('not_found', `run ${id} was stored before runs kept their ${what}; POST /api/v11/runs/${id}/replay recomputes it and stores nothing, ` +
      'a new backtest with the same inputs keeps them', { hints: { replay: `/api/v11/runs/${id}/replay` } })
  }
}

export function createRunResults(repo: TradingRepository) {
  /** Points [from, from + count) of a run's curve, with drawdown from the stored running peak. */
  async function points(runId: number, from: number, count: number): Promise<EquityPoint[]> {
    const first = Math.floor(from / EQUITY_CHUNK_POINTS)
    const chunks = await repo.runEquityChunks(runId, first, Math.ceil(count / EQUITY_CHUNK_POINTS) + 1)
    const out: EquityPoint[] = []
    for (const chunk of chunks) {
      for (const p of chunkPoints(chunk)) {
        if (p.i >= from && out.length < count) out.push(p)
      }
      if (out.length >= count) break
    }
    return out
  }

  return {
    async tradesPage(run: ReadableRun, query: PageQuery) {
      const id = run.id
      await backtestWithResults(repo, run, 'trades')
      const page = await tradeList.read(query, (r) => repo.runTradesPage(id, Number(r.after?.[0] ?? 0), r.limit + 1))
      return { run_id: id, total: await repo.runTradeCount(id), ...pageAnswer('trades', page, pageTrade), csv: `/api/v11/runs/${id}/trades` }
    },

    async equityPage(run: ReadableRun, query: PageQuery) {
      const id = run.id
      await backtestWithResults(repo, run, 'equity')
      const page = await equityList.read(query, (r) => points(id, r.after === null ? 0 : Number(r.after[0]) + 1, r.limit + 1))
      return { run_id: id, total: await repo.runEquityPoints(id), ...pageAnswer('points', page, pointView), csv: `/api/v11/runs/${id}/equity` }
    },

    /** Every trade as CSV, read and written a step at a time as the client takes it. */
    async tradesCsv(run: ReadableRun): Promise<Readable> {
      await backtestWithResults(repo, run, 'trades')
      return Readable.from(tradeLines(repo, run.id))
    },

    async equityCsv(run: ReadableRun): Promise<Readable> {
      await backtestWithResults(repo, run, 'equity')
      return Readable.from(equityLines(repo, run.id))
    },
  }
}

export type RunResultsReader = ReturnType<typeof createRunResults>

function* chunkPoints(chunk: RunEquityRow): Generator<EquityPoint> {
  const pairs = decodeEquityChunk(chunk.data)
  let peak = Number(chunk.peak_before)
  const base = Number(chunk.chunk) * EQUITY_CHUNK_POINTS
  for (let k = 0; k < pairs.length / 2; k++) {
    const equity = pairs[2 * k + 1]!
    if (equity > peak) peak = equity
    yield { i: base + k, ts: pairs[2 * k]!, equity, drawdown_pct: peak > 0 ? (equity / peak - 1) * 100 : 0 }
  }
}

const csvNumber = (v: number | null): string => (v === null || !Number.isFinite(v) ? '' : String(v))

async function* tradeLines(repo: TradingRepository, id: number): AsyncGenerator<string> {
  yield `seq,entry_time,exit_time,${TRADE_COLUMNS.join(',')},open\n`
  let after = 0
  for (;;) {
    await nextTurn()
    const rows = await repo.runTradesPage(id, after, CSV_TRADES_STEP)
    if (rows.length === 0) return
    let text = ''
    for (const t of rows) {
      // The times and open as a page shows them; the stored columns as stored (times in epoch ms too).
      const trade = storedTrade(t)
      const view = tradeView(trade)
      text += `${t.seq},${view.entry_time},${view.exit_time ?? ''},${TRADE_COLUMNS.map((c) => csvNumber(trade[c])).join(',')},${view.open}\n`
    }
    yield text
    after = Number(rows[rows.length - 1]!.seq)
  }
}

async function* equityLines(repo: TradingRepository, id: number): AsyncGenerator<string> {
  yield 'i,time,ts,equity,drawdown_pct\n'
  for (let chunk = 0; ; chunk++) {
    const [row] = await repo.runEquityChunks(id, chunk, 1)
    if (!row) return
    let text = ''
    let rows = 0
    for (const p of chunkPoints(row)) {
      text += `${p.i},${iso(p.ts)},${p.ts},${p.equity},${p.drawdown_pct}\n`
      if (++rows % CSV_POINTS_STEP === 0) {
        yield text
        text = ''
        await nextTurn()
      }
    }
    if (text) yield text
    await nextTurn()
  }
}
