// Stored research runs: each answer is kept with the digest of everything that determined it, so a repeat is recognised.
import type { Clock } from '../clock.js'
import { ENGINE_VERSION } from '../engines/trading/index.js'
import { digestOf } from './checksum.js'
import { sealRunningJob } from '../jobs/effects.js'
import { Refusal } from '../refusal.js'
import { nextTurn } from '../store/turns.js'
import { iso } from './present.js'
import type { DatasetRow, RunKind, TradingRepository } from './repository.js'
import type { RunResults, TrialRow } from './rows.js'
import { PLATFORM_VERSION } from './schemas.js'

export interface StoredRunRef {
  id: number
  inputs_digest: string
  /** Digest of what determines the figures: the dataset's content, kind, strategy, parameters, costs, engine version, seed. */
  fingerprint: string
  same_inputs_as_run: number | null
  created_at: string
  elapsed_ms: number
  /** false: an identical run was stored before, and id and created_at are that run's. */
  stored: boolean
}

/** Stored runs kept (count; age in days; 0 = no limit of that kind): the oldest go at each new run. */
export interface RunRetention {
  maxRuns: number
  maxAgeDays: number
}

export type RunRecorder = ReturnType<typeof createRunRecorder>

export function createRunRecorder(repo: TradingRepository, clock: Clock, retention: RunRetention = { maxRuns: 0, maxAgeDays: 0 }) {
  /**
   * Stores a run once per inputs: identical inputs give an identical answer, so a repeat only adds a curve the first
   * lacked. Lookup, insert and pruning are one transaction: two replicas storing the same inputs at once store one run.
   */
  async function record(kind: RunKind, dataset: DatasetRow, fields: {
    strategy: string | null
    params: unknown
    request: unknown
    /** Everything besides the dataset that determines the answer (the run's inputs digest covers it). */
    inputs: Record<string, unknown>
    stats: unknown
    equity: Array<[number, number]> | null
    /** A backtest's every trade and its whole curve, stored with the run to be paged. */
    results?: RunResults | null
    /** A search's trials, stored with the run for its heat map and overfitting verdict. */
    trials?: readonly TrialRow[] | null
    elapsedMs: number
  }): Promise<StoredRunRef> {
    const digest = digestOf({ kind, engine: PLATFORM_VERSION, dataset: { id: dataset.id, sha256: dataset.sha256 }, ...fields.inputs })
    const fingerprint = fingerprintOf(kind, dataset.sha256, fields.inputs)
    const equity = fields.equity ? JSON.stringify(fields.equity) : null
    const results = fields.results ?? null
    const elapsedMs = round(fields.elapsedMs, 3)
    const row = {
      kind,
      dataset_id: dataset.id,
      strategy: fields.strategy,
      params: JSON.stringify(fields.params),
      request: JSON.stringify(fields.request),
      inputs_digest: digest,
      stats: JSON.stringify(fields.stats),
      equity,
      elapsed_ms: fields.elapsedMs,
      fingerprint,
      engine_version: ENGINE_VERSION,
      summary: results ? JSON.stringify({ monthly: results.monthly }) : null,
    }
    const repeatOf = (first: { id: number; created_at: string }): StoredRunRef =>
      ({ id: first.id, inputs_digest: digest, fingerprint, same_inputs_as_run: first.id, created_at: first.created_at, elapsed_ms: elapsedMs, stored: false })
    // A repeat that adds nothing is answered without a transaction (runs are never changed but for what they lacked).
    const seen = await repo.firstRunWithDigest(digest)
    if (seen && (!equity || seen.has_equity) && (!results || seen.has_results)) return repeatOf(seen)
    const { ref, resultsFor } = await repo.transaction(async (tx) => {
      // Run as a job, the run is that job's effect: written only if the job is still running, and sealing it (a
      // cancel can no longer win); if a cancel won, this throws and nothing of the run is stored (src/jobs/effects.ts).
      await sealRunningJob(tx.sql)
      // Deleted while the run was computed: a clean refusal, never a foreign-key error (nothing is stored).
      if (!(await tx.datasetById(dataset.id))) {
        throw new Refusal('conflict', `dataset #${dataset.id} ${dataset.symbol}@${dataset.timeframe} was deleted while this run was computed; nothing was stored`, {
          hints: { dataset: dataset.id },
        })
      }
      const first = await tx.firstRunWithDigest(digest)
      if (first) {
        if (equity && !first.has_equity) await tx.setMissingRunEquity(first.id, equity)
        return { ref: repeatOf(first), resultsFor: results && !first.has_results ? first.id : null }
      }
      const now = clock.now()
      const createdAt = iso(now)
      const id = await tx.insertRun({ ...row, created_at: createdAt })
      await tx.pruneRuns(id, retention, now)
      const stored: StoredRunRef = { id, inputs_digest: digest, fingerprint, same_inputs_as_run: null, created_at: createdAt, elapsed_ms: elapsedMs, stored: true }
      return { ref: stored, resultsFor: results ? id : null }
    })
    // Results grow with the bars and trades: written after the run's row, a batch per loop turn (on SQLite every
    // statement is synchronous, and one transaction of them all held the loop for a 250k-bar curve).
    if (resultsFor !== null && results) await repo.insertRunResults(resultsFor, results, nextTurn)
    if (ref.stored && fields.trials?.length) await repo.insertRunTrials(ref.id, fields.trials, nextTurn)
    return ref
  }

  return { record }
}

/**
 * The run's fingerprint: what its figures depend on, by content (the dataset's bars digest, not its id), with the engine
 * version and the seed named, so the same fingerprint means the same figures and a replay can say why they differ.
 */
export function fingerprintOf(kind: RunKind, datasetSha256: string, inputs: Record<string, unknown>): string {
  const spec = inputs.spec as { seed?: unknown } | undefined
  return digestOf({ kind, engine: ENGINE_VERSION, dataset_sha256: datasetSha256, seed: spec?.seed ?? null, ...inputs })
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits
