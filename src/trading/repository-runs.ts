// The runs and signals tables (part of the trading repository): stored runs, their retention, and the signals they emit.
import type { Sql } from '../store/sql.js'
import { RUN_KINDS, type RunKind, type RunRow, type NewRun, type SignalRow } from './rows.js'
import { TRADE_COLUMNS, tradeRows } from '../engines/trading/run-series.js'
import type { RunResults, TrialRow } from './rows.js'

/** Rows per INSERT: 12 parameters a trade stays far below every backend's parameter limit. */
const TRADE_BATCH = 500
const TRIAL_BATCH = 200
/** Curve chunks per INSERT (each ~44 KB of text). */
const CHUNK_BATCH = 8

export interface RunTradeRow {
  seq: number
  size: number
  entry_bar: number
  exit_bar: number | null
  entry_ts: number
  exit_ts: number | null
  entry_price: number
  exit_price: number | null
  pnl: number
  return_pct: number
  commissions: number
}

export interface RunEquityRow {
  chunk: number
  points: number
  peak_before: number
  data: string
}

export interface RunTrialRow {
  seq: number
  strategy: string
  params: string
  score: number | null
  return_pct: number | null
  blocks: string
}

const idOf = (row: { id: number } | undefined): number => Number(row!.id)

export function createRunTables(sql: Sql) {
  return {
    insertRun: async (run: NewRun): Promise<number> => idOf(await sql.get<{ id: number }>(
      `INSERT INTO runs (kind, dataset_id, strategy, params, request, inputs_digest, stats, equity, elapsed_ms, created_at, fingerprint, engine_version, summary)
       VALUES (@kind, @dataset_id, @strategy, @params, @request, @inputs_digest, @stats, @equity, @elapsed_ms, @created_at, @fingerprint, @engine_version, @summary) RETURNING id`,
      run,
    )),
    runById: (id: number): Promise<RunRow | undefined> => sql.get<RunRow>('SELECT * FROM runs WHERE id = ?', [id]),
    recentRuns: (limit: number) => sql.all<Omit<RunRow, 'equity' | 'request'>>(
      `SELECT id, kind, dataset_id, strategy, params, inputs_digest, stats, elapsed_ms, created_at
       FROM runs ORDER BY id DESC LIMIT ?`, [limit],
    ),
    latestBacktest: (): Promise<RunRow | undefined> =>
      sql.get<RunRow>("SELECT * FROM runs WHERE kind = 'backtest' AND equity IS NOT NULL ORDER BY id DESC LIMIT 1"),
    earlierRunWithDigest: async (digest: string, beforeId: number): Promise<number | null> => {
      const row = await sql.get<{ id: number }>('SELECT id FROM runs WHERE inputs_digest = ? AND id < ? ORDER BY id LIMIT 1', [digest, beforeId])
      return row ? Number(row.id) : null
    },
    /** The first stored run with these inputs (identical runs are stored once). */
    firstRunWithDigest: async (digest: string) => {
      const row = await sql.get<{ id: number; created_at: string; has_equity: number; has_results: number }>(
        `SELECT id, created_at, CASE WHEN equity IS NULL THEN 0 ELSE 1 END AS has_equity,
           CASE WHEN EXISTS (SELECT 1 FROM run_equity e WHERE e.run_id = runs.id) THEN 1 ELSE 0 END AS has_results
         FROM runs WHERE inputs_digest = ? ORDER BY id LIMIT 1`,
        [digest],
      )
      return row && { id: Number(row.id), created_at: row.created_at, has_equity: Number(row.has_equity) === 1, has_results: Number(row.has_results) === 1 }
    },
    /**
     * A backtest's trades (a row each) and curve chunks, a batch per statement; `between` runs between batches (a loop
     * turn). Trades first, the curve last: a run has results once its first chunk is there.
     */
    async insertRunResults(runId: number, results: RunResults, between: () => Promise<void> = async () => undefined): Promise<void> {
      const rows = tradeRows(results.trades)
      for (let from = 0; from < rows.length; from += TRADE_BATCH) {
        const batch = rows.slice(from, from + TRADE_BATCH)
        const values = batch.map(() => `(?, ?, ${TRADE_COLUMNS.map(() => '?').join(', ')})`).join(', ')
        await sql.run(`INSERT INTO run_trades (run_id, seq, ${TRADE_COLUMNS.join(', ')}) VALUES ${values}`,
          batch.flatMap((row, k) => [runId, from + k + 1, ...row]))
        await between()
      }
      for (let from = 0; from < results.equity.length; from += CHUNK_BATCH) {
        const batch = results.equity.slice(from, from + CHUNK_BATCH)
        await sql.run(`INSERT INTO run_equity (run_id, chunk, points, peak_before, data) VALUES ${batch.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
          batch.flatMap((c) => [runId, c.chunk, c.points, c.peakBefore, c.data]))
        await between()
      }
    },
    async insertRunTrials(runId: number, trials: readonly TrialRow[], between: () => Promise<void> = async () => undefined): Promise<void> {
      for (let from = 0; from < trials.length; from += TRIAL_BATCH) {
        await between()
        const batch = trials.slice(from, from + TRIAL_BATCH)
        await sql.run(`INSERT INTO run_trials (run_id, seq, strategy, params, score, return_pct, blocks) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          batch.flatMap((t, k) => [runId, from + k, t.strategy, JSON.stringify(t.params), t.score, t.return_pct, t.blocks]))
      }
    },
    /** Up to `limit` trades of a run after trade `afterSeq`, in order. */
    runTradesPage: (runId: number, afterSeq: number, limit: number) => sql.all<RunTradeRow>(
      `SELECT seq, ${TRADE_COLUMNS.join(', ')} FROM run_trades WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [runId, afterSeq, limit],
    ),
    runTradeCount: async (runId: number): Promise<number> =>
      Number((await sql.get<{ n: number }>('SELECT count(*) AS n FROM run_trades WHERE run_id = ?', [runId]))?.n ?? 0),
    /** Equity chunks of a run from chunk `from` on (at most `count`). */
    runEquityChunks: (runId: number, from: number, count: number) => sql.all<RunEquityRow>(
      'SELECT chunk, points, peak_before, data FROM run_equity WHERE run_id = ? AND chunk >= ? ORDER BY chunk LIMIT ?', [runId, from, count],
    ),
    runEquityPoints: async (runId: number): Promise<number> =>
      Number((await sql.get<{ n: number | null }>('SELECT sum(points) AS n FROM run_equity WHERE run_id = ?', [runId]))?.n ?? 0),
    runTrials: (runId: number) => sql.all<RunTrialRow>(
      'SELECT seq, strategy, params, score, return_pct, blocks FROM run_trials WHERE run_id = ? ORDER BY seq', [runId],
    ),
    /** The trials without their block moments (what a report's heat map needs). */
    runTrialScores: (runId: number) => sql.all<Omit<RunTrialRow, 'blocks'>>(
      'SELECT seq, strategy, params, score, return_pct FROM run_trials WHERE run_id = ? ORDER BY seq', [runId],
    ),
    /** Deletes a run (its trades, curve and trials go by ON DELETE CASCADE), unlinking the signals it emitted. */
    async deleteRun(runId: number): Promise<boolean> {
      await sql.run('UPDATE signals SET run_id = NULL WHERE run_id = ?', [runId])
      return (await sql.run('DELETE FROM runs WHERE id = ?', [runId])).changes === 1
    },
    /** Gives a run stored without its equity curve the curve a repeat of it asked for. */
    setMissingRunEquity: async (id: number, equity: string): Promise<void> => {
      await sql.run('UPDATE runs SET equity = ? WHERE id = ? AND equity IS NULL', [equity, id])
    },
    /**
     * Deletes the oldest runs beyond the retention policy (count and/or age; 0 = no limit of that kind), unlinking the
     * signals that point at them; the newest run always stays. Answers how many runs went.
     */
    async pruneRuns(newestId: number, policy: { maxRuns: number; maxAgeDays: number }, now: number): Promise<number> {
      let upTo = policy.maxRuns > 0 ? newestId - policy.maxRuns : 0
      if (policy.maxAgeDays > 0) {
        const cutoff = new Date(now - policy.maxAgeDays * 86_400_000).toISOString()
        // One index step when the oldest run is young enough, which is the usual case.
        const oldest = (await sql.get<{ created_at: string }>('SELECT created_at FROM runs ORDER BY id LIMIT 1'))?.created_at
        if (oldest !== undefined && oldest < cutoff) {
          // Ids grow with time, so "oldest" is "lowest id": the last stale run among the oldest thousand bounds the work per call.
          const stale = await sql.get<{ id: number | null }>(
            'SELECT max(id) AS id FROM (SELECT id, created_at FROM runs ORDER BY id LIMIT 1000) AS oldest WHERE created_at < ?', [cutoff],
          )
          upTo = Math.max(upTo, Number(stale?.id ?? 0))
        }
      }
      upTo = Math.min(upTo, newestId - 1)
      if (upTo <= 0) return 0
      await sql.run('UPDATE signals SET run_id = NULL WHERE run_id IS NOT NULL AND run_id <= ?', [upTo])
      return (await sql.run('DELETE FROM runs WHERE id <= ?', [upTo])).changes
    },
    async runCounts(): Promise<Record<RunKind, number>> {
      const out = Object.fromEntries(RUN_KINDS.map((kind) => [kind, 0])) as Record<RunKind, number>
      for (const { kind, n } of await sql.all<{ kind: RunKind; n: number }>('SELECT kind, count(*) AS n FROM runs GROUP BY kind')) {
        out[kind] = Number(n)
      }
      return out
    },

    insertSignal: async (signal: Omit<SignalRow, 'id'>): Promise<number> => idOf(await sql.get<{ id: number }>(
      `INSERT INTO signals (dataset_id, strategy, params, signal, bar_ts, origin, run_id, created_at)
       VALUES (@dataset_id, @strategy, @params, @signal, @bar_ts, @origin, @run_id, @created_at) RETURNING id`,
      signal,
    )),
    recentSignals: (limit: number) => sql.all<SignalRow & { symbol: string; timeframe: string }>(
      `SELECT s.*, d.symbol, d.timeframe FROM signals s JOIN datasets d ON d.id = s.dataset_id
       ORDER BY s.id DESC LIMIT ?`, [limit],
    ),
  }
}
