// Stored research runs: each answer is kept with the digest of everything that determined it, so a repeat is recognised.
import type { Clock } from '../sched/clock.js'
import { ENGINE_VERSION } from '../engines/trading/index.js'
import { digestOf } from './checksum.js'
import { noteRunningJobEffect, sealRunningJob } from '../jobs/effects.js'
import { Refusal } from '../http/refusal.js'
import { iso } from './present.js'
import type { DatasetRow, RunKind, TradingRepository } from './repository.js'
import type { RunResults, TrialRow } from './rows.js'
import type { RunResultsState } from './repository-runs.js'
import { hasResults, newResultsWriter, resultsStanding, writeRunResults, type RunResultsToWrite } from './run-results-writer.js'
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

/** What a research function stores: a run, owned by the principal the recorder was made for. */
export interface RunRecorder {
  record(kind: RunKind, dataset: DatasetRow, fields: RunFields): Promise<StoredRunRef>
}

export interface RunFields {
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
}

export interface RunRecorderOptions {
  retention?: RunRetention
  /** How long a results writer's claim holds without being renewed (RUN_RESULTS_LEASE_MS). */
  resultsLeaseMs?: number
}

export const DEFAULT_RESULTS_LEASE_MS = 60_000

/** A job's effect naming a stored run (src/jobs/effects.ts), and the run an effect names (null: not a run's). */
export const runEffect = (id: number): string => `run:${id}`
export const runOfEffect = (effect: string): number | null => (/^run:(\d+)$/.exec(effect) ? Number(effect.slice(4)) : null)

/** The recorder of runs stored for `owner` (Principal.owner): `recorder.for(owner)`. */
export function createRunRecorder(repo: TradingRepository, clock: Clock, options: RunRecorderOptions = {}) {
  const retention = options.retention ?? { maxRuns: 0, maxAgeDays: 0 }
  const leaseMs = options.resultsLeaseMs ?? DEFAULT_RESULTS_LEASE_MS

  /**
   * Stores a run once per inputs: identical inputs give an identical answer, so a repeat only adds its principal as an
   * owner, and what the first lacked (a curve, results whose writing never finished). Lookup, insert, ownership and
   * pruning are one transaction: two replicas storing the same inputs at once store one run.
   */
  async function record(owner: string, kind: RunKind, dataset: DatasetRow, fields: RunFields): Promise<StoredRunRef> {
    const digest = digestOf({ kind, engine: PLATFORM_VERSION, dataset: { id: dataset.id, sha256: dataset.sha256 }, ...fields.inputs })
    const fingerprint = fingerprintOf(kind, dataset.sha256, fields.inputs)
    const equity = fields.equity ? JSON.stringify(fields.equity) : null
    const toWrite: RunResultsToWrite = { results: fields.results ?? null, trials: fields.trials ?? null }
    const elapsedMs = round(fields.elapsedMs, 3)
    const repeatOf = (first: { id: number; created_at: string }): StoredRunRef =>
      ({ id: first.id, inputs_digest: digest, fingerprint, same_inputs_as_run: first.id, created_at: first.created_at, elapsed_ms: elapsedMs, stored: false })
    /** Whether this repeat writes the results of the run found (none stored whole, and nobody writing them now). */
    const writesResults = (state: RunResultsState) => {
      if (!hasResults(toWrite)) return false
      const standing = resultsStanding(state, clock.now(), leaseMs)
      return standing === 'missing' || standing === 'abandoned'
    }
    // A job's answer names this run: an identical submission shares the job only while the run stands (runEffect).
    const named = (ref: StoredRunRef): StoredRunRef => {
      noteRunningJobEffect(runEffect(ref.id))
      return ref
    }
    // A repeat that adds nothing is answered without a transaction (runs are never changed but for what they lacked).
    const seen = await repo.firstRunWithDigest(digest, owner)
    if (seen && seen.owned && (!equity || seen.has_equity) && !writesResults(seen.results)) return named(repeatOf(seen))
    const writer = newResultsWriter()
    const { ref, claimed } = await repo.transaction(async (tx) => {
      // Run as a job, the run is that job's effect: written only if the job is still running, and sealing it (a
      // cancel can no longer win); if a cancel won, this throws and nothing of the run is stored (src/jobs/effects.ts).
      await sealRunningJob(tx.sql)
      // Deleted while the run was computed: a clean refusal, never a foreign-key error (nothing is stored).
      if (!(await tx.datasetById(dataset.id))) {
        throw new Refusal('conflict', `dataset #${dataset.id} ${dataset.symbol}@${dataset.timeframe} was deleted while this run was computed; nothing was stored`, {
          hints: { dataset: dataset.id },
        })
      }
      const now = clock.now()
      const createdAt = iso(now)
      const first = await tx.firstRunWithDigest(digest, owner)
      if (first) {
        if (!first.owned) await tx.addRunOwner(first.id, owner, createdAt)
        if (equity && !first.has_equity) await tx.setMissingRunEquity(first.id, equity)
        const claim = writesResults(first.results)
        if (claim) await tx.claimRunResults(first.id, writer, now)
        return { ref: repeatOf(first), claimed: claim }
      }
      const claim = hasResults(toWrite)
      const id = await tx.insertRun({
        kind,
        dataset_id: dataset.id,
        strategy: fields.strategy,
        params: JSON.stringify(fields.params),
        request: JSON.stringify(fields.request),
        inputs_digest: digest,
        stats: JSON.stringify(fields.stats),
        equity,
        elapsed_ms: fields.elapsedMs,
        created_at: createdAt,
        fingerprint,
        engine_version: ENGINE_VERSION,
        summary: toWrite.results ? JSON.stringify({ monthly: toWrite.results.monthly }) : null,
        // Its results are written after this transaction: not read until the writer marks them whole.
        results_writer: claim ? writer : null,
        results_claimed_at: claim ? now : null,
      })
      await tx.addRunOwner(id, owner, createdAt)
      await tx.pruneRuns(id, retention, now)
      const stored: StoredRunRef = { id, inputs_digest: digest, fingerprint, same_inputs_as_run: null, created_at: createdAt, elapsed_ms: elapsedMs, stored: true }
      return { ref: stored, claimed: claim }
    })
    if (claimed) await writeRunResults(repo, clock, ref.id, writer, toWrite, leaseMs)
    return named(ref)
  }

  return {
    /** Runs stored as `owner`'s (Principal.owner): a repeat of another owner's inputs makes it an owner too. */
    for: (owner: string): RunRecorder => ({ record: (kind, dataset, fields) => record(owner, kind, dataset, fields) }),
    leaseMs,
  }
}

export type RunRecorders = ReturnType<typeof createRunRecorder>

/**
 * The run's fingerprint: what its figures depend on, by content (the dataset's bars digest, not its id), with the engine
 * version and the seed named, so the same fingerprint means the same figures and a replay can say why they differ.
 */
export function fingerprintOf(kind: RunKind, datasetSha256: string, inputs: Record<string, unknown>): string {
  const spec = inputs.spec as { seed?: unknown } | undefined
  return digestOf({ kind, engine: ENGINE_VERSION, dataset_sha256: datasetSha256, seed: spec?.seed ?? null, ...inputs })
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits
