// The runs and signals tables (part of the trading repository): stored runs, their retention, and the signals they emit.
import type { Sql } from '../store/sql.js'
import { RUN_KINDS, type RunKind, type RunRow, type NewRun, type SignalRow } from './rows.js'
import { TRADE_COLUMNS } from '../engines/trading/run-series.js'
import type { TradeRecord } from '../engines/trading/trade-view.js'
import type { RunResults, TrialRow } from './rows.js'

/** A stored trade: the trade view's record (its figures NOT NULL), numbered. */
export interface RunTradeRow extends TradeRecord<number> {
  seq: number
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

/** A run's results as the table stands: the writer's claim, and whether any result row is there. */
export interface RunResultsState {
  writer: string | null
  claimedAt: number | null
  hasRows: boolean
}

/** A lapsed claim's results_claimed_at: handed over by a failing writer (1: the sweep tries again), or given up by the sweep (0: a repeat rewrites). */
const LAPSED = 1
const CLEARED = 0

/** Results join: rows of a run count only once its writer is done (runs.results_writer IS NULL). */
const WHOLE = 'JOIN runs w ON w.id = x.run_id AND w.results_writer IS NULL'

export function createRunTables(sql: Sql) {
  /** Deletes a run (its owners, trades, curve and trials go by ON DELETE CASCADE), unlinking the signals it emitted. */
  async function deleteRun(runId: number): Promise<boolean> {
    await sql.run('UPDATE signals SET run_id = NULL WHERE run_id = ?', [runId])
    return (await sql.run('DELETE FROM runs WHERE id = ?', [runId])).changes === 1
  }
  async function deleteRunResults(runId: number): Promise<void> {
    for (const table of ['run_trades', 'run_equity', 'run_trials']) await sql.run(`DELETE FROM ${table} WHERE run_id = ?`, [runId])
  }

  return {
    // Ids are never reused (a client holding a run's URL must never read another run): PostgreSQL's identity never
    // goes back; SQLite would give the newest id again after a delete, so it takes the next of the highest ever given
    // (run_ids, migration 0072).
    insertRun: async (run: NewRun): Promise<number> => idOf(await sql.get<{ id: number }>(
      `INSERT INTO runs (${sql.dialect === 'sqlite' ? 'id, ' : ''}kind, dataset_id, strategy, params, request, inputs_digest, stats, equity, elapsed_ms, created_at, fingerprint, engine_version, summary,
         results_writer, results_claimed_at)
       VALUES (${sql.dialect === 'sqlite' ? '(SELECT last + 1 FROM run_ids), ' : ''}@kind, @dataset_id, @strategy, @params, @request, @inputs_digest, @stats, @equity, @elapsed_ms, @created_at, @fingerprint, @engine_version, @summary,
         @results_writer, @results_claimed_at) RETURNING id`,
      run,
    )),
    runById: (id: number): Promise<RunRow | undefined> => sql.get<RunRow>('SELECT * FROM runs WHERE id = ?', [id]),
    /** A run, and whether `owner` is one of its owners. */
    async runWithOwner(id: number, owner: string): Promise<{ run: RunRow; owned: boolean } | undefined> {
      const row = await sql.get<RunRow & { owned: number }>(
        `SELECT r.*, CASE WHEN EXISTS (SELECT 1 FROM run_owners o WHERE o.run_id = r.id AND o.owner = ?) THEN 1 ELSE 0 END AS owned
         FROM runs r WHERE r.id = ?`, [owner, id],
      )
      if (!row) return undefined
      const { owned, ...run } = row
      return { run, owned: Number(owned) === 1 }
    },
    /** Which of these runs `owner` owns. */
    async ownedRunIds(ids: readonly number[], owner: string): Promise<Set<number>> {
      if (ids.length === 0) return new Set()
      const rows = await sql.all<{ run_id: number }>(
        `SELECT run_id FROM run_owners WHERE owner = ? AND run_id IN (${ids.map(() => '?').join(', ')})`, [owner, ...ids])
      return new Set(rows.map((r) => Number(r.run_id)))
    },
    /** Makes `owner` an owner of a run (a repeat of its inputs by another principal); false when it already was. */
    addRunOwner: async (runId: number, owner: string, createdAt: string): Promise<boolean> => (await sql.run(
      'INSERT INTO run_owners (run_id, owner, created_at) VALUES (?, ?, ?) ON CONFLICT (run_id, owner) DO NOTHING', [runId, owner, createdAt],
    )).changes === 1,
    /** Takes `owner`'s ownership away and deletes the run when no owner is left: what went (call on a transaction's Sql). */
    async giveUpRun(runId: number, owner: string): Promise<{ owned: boolean; deleted: boolean }> {
      const owned = (await sql.run('DELETE FROM run_owners WHERE run_id = ? AND owner = ?', [runId, owner])).changes === 1
      if (!owned) return { owned, deleted: false }
      const left = await sql.get<{ one: number }>('SELECT 1 AS one FROM run_owners WHERE run_id = ? LIMIT 1', [runId])
      return { owned, deleted: left ? false : await deleteRun(runId) }
    },
    /** The newest runs `owner` owns (every run's when null). */
    recentRuns: (limit: number, owner: string | null) => sql.all<Omit<RunRow, 'equity' | 'request'>>(owner === null
      ? `SELECT id, kind, dataset_id, strategy, params, inputs_digest, stats, elapsed_ms, created_at FROM runs ORDER BY id DESC LIMIT ?`
      : `SELECT r.id, r.kind, r.dataset_id, r.strategy, r.params, r.inputs_digest, r.stats, r.elapsed_ms, r.created_at
         FROM run_owners o JOIN runs r ON r.id = o.run_id WHERE o.owner = ? ORDER BY o.run_id DESC LIMIT ?`,
    owner === null ? [limit] : [owner, limit]),
    /** The newest backtest with a curve that `owner` owns (of every run when null). */
    latestBacktest: (owner: string | null): Promise<RunRow | undefined> => owner === null
      ? sql.get<RunRow>("SELECT * FROM runs WHERE kind = 'backtest' AND equity IS NOT NULL ORDER BY id DESC LIMIT 1")
      : sql.get<RunRow>(`SELECT r.* FROM run_owners o JOIN runs r ON r.id = o.run_id
         WHERE o.owner = ? AND r.kind = 'backtest' AND r.equity IS NOT NULL ORDER BY o.run_id DESC LIMIT 1`, [owner]),
    earlierRunWithDigest: async (digest: string, beforeId: number): Promise<number | null> => {
      const row = await sql.get<{ id: number }>('SELECT id FROM runs WHERE inputs_digest = ? AND id < ? ORDER BY id LIMIT 1', [digest, beforeId])
      return row ? Number(row.id) : null
    },
    /** The first stored run with these inputs (identical runs are stored once): whether `owner` owns it, and its results. */
    firstRunWithDigest: async (digest: string, owner: string) => {
      const row = await sql.get<{ id: number; created_at: string; has_equity: number; has_rows: number; owned: number; results_writer: string | null; results_claimed_at: number | null }>(
        `SELECT id, created_at, results_writer, results_claimed_at, CASE WHEN equity IS NULL THEN 0 ELSE 1 END AS has_equity,
           CASE WHEN EXISTS (SELECT 1 FROM run_equity e WHERE e.run_id = runs.id) OR EXISTS (SELECT 1 FROM run_trials t WHERE t.run_id = runs.id)
             THEN 1 ELSE 0 END AS has_rows,
           CASE WHEN EXISTS (SELECT 1 FROM run_owners o WHERE o.run_id = runs.id AND o.owner = ?) THEN 1 ELSE 0 END AS owned
         FROM runs WHERE inputs_digest = ? ORDER BY id LIMIT 1`,
        [owner, digest],
      )
      if (!row) return undefined
      const results: RunResultsState = {
        writer: row.results_writer, claimedAt: row.results_claimed_at === null ? null : Number(row.results_claimed_at), hasRows: Number(row.has_rows) === 1,
      }
      return { id: Number(row.id), created_at: row.created_at, has_equity: Number(row.has_equity) === 1, owned: Number(row.owned) === 1, results }
    },
    /**
     * Claims the writing of a run's results for `writer` (in the transaction that decided to) and deletes any rows a
     * writer before it left: the results are not read until finishRunResults.
     */
    async claimRunResults(runId: number, writer: string, now: number): Promise<void> {
      await sql.run('UPDATE runs SET results_writer = ?, results_claimed_at = ? WHERE id = ?', [writer, now, runId])
      await deleteRunResults(runId)
    },
    /** Renews a claim before each batch: false when it is no longer this writer's (taken over after its lease, or the run deleted). */
    renewRunResults: async (runId: number, writer: string, now: number): Promise<boolean> =>
      (await sql.run('UPDATE runs SET results_claimed_at = ? WHERE id = ? AND results_writer = ?', [now, runId, writer])).changes === 1,
    /** The completion marker, written last: the results count as stored from here on (false: the claim was lost). */
    finishRunResults: async (runId: number, writer: string): Promise<boolean> =>
      (await sql.run('UPDATE runs SET results_writer = NULL, results_claimed_at = NULL WHERE id = ? AND results_writer = ?', [runId, writer])).changes === 1,
    /**
     * A writer that stops hands its claim over at once: `retry` (it failed; the sweep tries again) or `repeat` (the
     * sweep gives up; a repeat of the run by a request claims it). Either way a repeat claims it without waiting.
     */
    abandonRunResults: async (runId: number, writer: string, then: 'retry' | 'repeat' = 'retry'): Promise<void> => {
      await sql.run('UPDATE runs SET results_claimed_at = ? WHERE id = ? AND results_writer = ?', [then === 'retry' ? LAPSED : CLEARED, runId, writer])
    },
    /** Up to `limit` runs whose results writer's claim lapsed before `before` (epoch ms) and whose rows are not yet cleared. */
    abandonedRunResults: async (before: number, limit: number): Promise<number[]> => (await sql.all<{ id: number }>(
      `SELECT id FROM runs WHERE results_writer IS NOT NULL AND results_claimed_at < ? AND results_claimed_at > ${CLEARED}
       ORDER BY results_claimed_at LIMIT ?`, [before, limit],
    )).map((r) => Number(r.id)),
    /**
     * Takes over the results of a run whose writer's claim lapsed before `before` (not one the sweep gave up on): the
     * claim becomes `writer`'s and the partial rows go. False when another took it first.
     */
    reclaimRunResults: async (runId: number, writer: string, before: number, now: number): Promise<boolean> => {
      const taken = (await sql.run(`UPDATE runs SET results_writer = ?, results_claimed_at = ? WHERE id = ? AND results_writer IS NOT NULL
        AND results_claimed_at < ? AND results_claimed_at > ${CLEARED}`, [writer, now, runId, before])).changes === 1
      if (taken) await deleteRunResults(runId)
      return taken
    },
    /**
     * One batch of a backtest's trades (1-based seq from `from` + 1), curve chunks or a search's trials. A row already
     * there is kept: two writers of one run write the same rows (its results are a function of its inputs).
     */
    async insertTradeBatch(runId: number, from: number, rows: readonly (readonly (number | null)[])[]): Promise<void> {
      const values = rows.map(() => `(?, ?, ${TRADE_COLUMNS.map(() => '?').join(', ')})`).join(', ')
      await sql.run(`INSERT INTO run_trades (run_id, seq, ${TRADE_COLUMNS.join(', ')}) VALUES ${values} ON CONFLICT (run_id, seq) DO NOTHING`,
        rows.flatMap((row, k) => [runId, from + k + 1, ...row]))
    },
    async insertEquityBatch(runId: number, chunks: RunResults['equity']): Promise<void> {
      await sql.run(`INSERT INTO run_equity (run_id, chunk, points, peak_before, data) VALUES ${chunks.map(() => '(?, ?, ?, ?, ?)').join(', ')}
        ON CONFLICT (run_id, chunk) DO NOTHING`, chunks.flatMap((c) => [runId, c.chunk, c.points, c.peakBefore, c.data]))
    },
    async insertTrialBatch(runId: number, from: number, trials: readonly TrialRow[]): Promise<void> {
      await sql.run(`INSERT INTO run_trials (run_id, seq, strategy, params, score, return_pct, blocks) VALUES ${trials.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
        ON CONFLICT (run_id, seq) DO NOTHING`, trials.flatMap((t, k) => [runId, from + k, t.strategy, JSON.stringify(t.params), t.score, t.return_pct, t.blocks]))
    },
    // Every read of a run's results below sees them only once whole (WHOLE): a run whose writer is not done has none.
    /** Up to `limit` trades of a run after trade `afterSeq`, in order. */
    runTradesPage: (runId: number, afterSeq: number, limit: number) => sql.all<RunTradeRow>(
      `SELECT x.seq, ${TRADE_COLUMNS.map((c) => `x.${c}`).join(', ')} FROM run_trades x ${WHOLE} WHERE x.run_id = ? AND x.seq > ? ORDER BY x.seq LIMIT ?`,
      [runId, afterSeq, limit],
    ),
    /**
     * The first `limit` trades of a run as a trade block (TRADE_COLUMNS in order, NaN for null): read as values, no
     * object per trade, to be written as JSON where the block moves (GET /api/v11/runs/{id}).
     */
    async runTradeBlock(runId: number, limit: number): Promise<Float64Array> {
      const rows = await sql.values(
        `SELECT ${TRADE_COLUMNS.map((c) => `x.${c}`).join(', ')} FROM run_trades x ${WHOLE} WHERE x.run_id = ? ORDER BY x.seq LIMIT ?`, [runId, limit],
      )
      const block = new Float64Array(rows.length * TRADE_COLUMNS.length)
      let at = 0
      // PostgreSQL answers a BIGINT (a trade's times) as text.
      for (const row of rows) for (const value of row) block[at++] = value === null ? NaN : Number(value)
      return block
    },
    runTradeCount: async (runId: number): Promise<number> =>
      Number((await sql.get<{ n: number }>(`SELECT count(*) AS n FROM run_trades x ${WHOLE} WHERE x.run_id = ?`, [runId]))?.n ?? 0),
    /** Equity chunks of a run from chunk `from` on (at most `count`). */
    runEquityChunks: (runId: number, from: number, count: number) => sql.all<RunEquityRow>(
      `SELECT x.chunk, x.points, x.peak_before, x.data FROM run_equity x ${WHOLE} WHERE x.run_id = ? AND x.chunk >= ? ORDER BY x.chunk LIMIT ?`, [runId, from, count],
    ),
    runEquityPoints: async (runId: number): Promise<number> =>
      Number((await sql.get<{ n: number | null }>(`SELECT sum(x.points) AS n FROM run_equity x ${WHOLE} WHERE x.run_id = ?`, [runId]))?.n ?? 0),
    runTrials: (runId: number) => sql.all<RunTrialRow>(
      `SELECT x.seq, x.strategy, x.params, x.score, x.return_pct, x.blocks FROM run_trials x ${WHOLE} WHERE x.run_id = ? ORDER BY x.seq`, [runId],
    ),
    /** The trials without their block moments (what a report's heat map needs). */
    runTrialScores: (runId: number) => sql.all<Omit<RunTrialRow, 'blocks'>>(
      `SELECT x.seq, x.strategy, x.params, x.score, x.return_pct FROM run_trials x ${WHOLE} WHERE x.run_id = ? ORDER BY x.seq`, [runId],
    ),
    deleteRun,
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
