// The runs and signals tables (part of the trading repository): stored runs, their retention, and the signals they emit.
import type { Db } from '../store/index.js'
import { RUN_KINDS, type RunKind, type RunRow, type NewRun, type SignalRow } from './rows.js'


export function createRunTables(db: Db) {
  const s = {
    insertRun: db.prepare<[NewRun]>(
      `INSERT INTO runs (kind, dataset_id, strategy, params, request, inputs_digest, stats, equity, elapsed_ms, created_at)
       VALUES (@kind, @dataset_id, @strategy, @params, @request, @inputs_digest, @stats, @equity, @elapsed_ms, @created_at)`,
    ),
    runById: db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?'),
    recentRuns: db.prepare<[number], Omit<RunRow, 'equity' | 'request'>>(
      `SELECT id, kind, dataset_id, strategy, params, inputs_digest, stats, elapsed_ms, created_at
       FROM runs ORDER BY id DESC LIMIT ?`,
    ),
    latestBacktest: db.prepare<[], RunRow>(
      "SELECT * FROM runs WHERE kind = 'backtest' AND equity IS NOT NULL ORDER BY id DESC LIMIT 1",
    ),
    earlierRunWithDigest: db.prepare<[string, number], { id: number }>(
      'SELECT id FROM runs WHERE inputs_digest = ? AND id < ? ORDER BY id LIMIT 1',
    ),
    runCounts: db.prepare<[], { kind: RunKind; n: number }>('SELECT kind, count(*) AS n FROM runs GROUP BY kind'),
    firstRunWithDigest: db.prepare<[string], { id: number; created_at: string; has_equity: 0 | 1 }>(
      'SELECT id, created_at, equity IS NOT NULL AS has_equity FROM runs WHERE inputs_digest = ? ORDER BY id LIMIT 1',
    ),
    setMissingRunEquity: db.prepare<[string, number]>('UPDATE runs SET equity = ? WHERE id = ? AND equity IS NULL'),
    oldestRunAt: db.prepare<[], { created_at: string }>('SELECT created_at FROM runs ORDER BY id LIMIT 1'),
    // Ids grow with time, so "oldest" is "lowest id": the last stale run among the oldest thousand bounds the work per call.
    lastStaleRun: db.prepare<[string], { id: number | null }>(
      'SELECT max(id) AS id FROM (SELECT id, created_at FROM runs ORDER BY id LIMIT 1000) WHERE created_at < ?',
    ),
    unlinkSignalsOfRunsUpTo: db.prepare<[number]>('UPDATE signals SET run_id = NULL WHERE run_id IS NOT NULL AND run_id <= ?'),
    deleteRunsUpTo: db.prepare<[number]>('DELETE FROM runs WHERE id <= ?'),

    insertSignal: db.prepare<[Omit<SignalRow, 'id'>]>(
      `INSERT INTO signals (dataset_id, strategy, params, signal, bar_ts, origin, run_id, created_at)
       VALUES (@dataset_id, @strategy, @params, @signal, @bar_ts, @origin, @run_id, @created_at)`,
    ),
    recentSignals: db.prepare<[number], SignalRow & { symbol: string; timeframe: string }>(
      `SELECT s.*, d.symbol, d.timeframe FROM signals s JOIN datasets d ON d.id = s.dataset_id
       ORDER BY s.id DESC LIMIT ?`,
    ),
  }

  return {
    insertRun: (run: NewRun): number => Number(s.insertRun.run(run).lastInsertRowid),
    runById: (id: number): RunRow | undefined => s.runById.get(id),
    recentRuns: (limit: number) => s.recentRuns.all(limit),
    latestBacktest: (): RunRow | undefined => s.latestBacktest.get(),
    earlierRunWithDigest: (digest: string, beforeId: number): number | null =>
      s.earlierRunWithDigest.get(digest, beforeId)?.id ?? null,
    /** The first stored run with these inputs (identical runs are stored once). */
    firstRunWithDigest: (digest: string) => s.firstRunWithDigest.get(digest),
    /** Gives a run stored without its equity curve the curve a repeat of it asked for. */
    setMissingRunEquity: (id: number, equity: string): void => { s.setMissingRunEquity.run(equity, id) },
    /**
     * Deletes the oldest runs beyond the retention policy (count and/or age; 0 = no limit of that kind), unlinking the
     * signals that point at them; the newest run always stays. Answers how many runs went.
     */
    pruneRuns(newestId: number, policy: { maxRuns: number; maxAgeDays: number }, now: number): number {
      let upTo = policy.maxRuns > 0 ? newestId - policy.maxRuns : 0
      if (policy.maxAgeDays > 0) {
        const cutoff = new Date(now - policy.maxAgeDays * 86_400_000).toISOString()
        // One index step when the oldest run is young enough, which is the usual case.
        const oldest = s.oldestRunAt.get()?.created_at
        if (oldest !== undefined && oldest < cutoff) upTo = Math.max(upTo, s.lastStaleRun.get(cutoff)?.id ?? 0)
      }
      upTo = Math.min(upTo, newestId - 1)
      if (upTo <= 0) return 0
      s.unlinkSignalsOfRunsUpTo.run(upTo)
      return s.deleteRunsUpTo.run(upTo).changes
    },
    runCounts(): Record<RunKind, number> {
      const out = Object.fromEntries(RUN_KINDS.map((kind) => [kind, 0])) as Record<RunKind, number>
      for (const { kind, n } of s.runCounts.all()) out[kind] = n
      return out
    },

    insertSignal: (signal: Omit<SignalRow, 'id'>): number => Number(s.insertSignal.run(signal).lastInsertRowid),
    recentSignals: (limit: number) => s.recentSignals.all(limit),
  }
}
