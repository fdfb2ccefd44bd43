// Stored research runs: each answer is kept with the digest of everything that determined it, so a repeat is recognised.
import type { Clock } from '../clock.js'
import { digestOf } from './checksum.js'
import { iso } from './present.js'
import type { DatasetRow, RunKind, TradingRepository } from './repository.js'
import { PLATFORM_VERSION } from './schemas.js'

export interface StoredRunRef {
  id: number
  inputs_digest: string
  same_inputs_as_run: number | null
  created_at: string
  elapsed_ms: number
}

export type RunRecorder = ReturnType<typeof createRunRecorder>

export function createRunRecorder(repo: TradingRepository, clock: Clock) {
  function record(kind: RunKind, dataset: DatasetRow, fields: {
    strategy: string | null
    params: unknown
    request: unknown
    /** Everything besides the dataset that determines the answer (the run's inputs digest covers it). */
    inputs: Record<string, unknown>
    stats: unknown
    equity: Array<[number, number]> | null
    elapsedMs: number
  }): StoredRunRef {
    const digest = digestOf({ kind, engine: PLATFORM_VERSION, dataset: { id: dataset.id, sha256: dataset.sha256 }, ...fields.inputs })
    const createdAt = iso(clock.now())
    const id = repo.insertRun({
      kind,
      dataset_id: dataset.id,
      strategy: fields.strategy,
      params: JSON.stringify(fields.params),
      request: JSON.stringify(fields.request),
      inputs_digest: digest,
      stats: JSON.stringify(fields.stats),
      equity: fields.equity ? JSON.stringify(fields.equity) : null,
      elapsed_ms: fields.elapsedMs,
      created_at: createdAt,
    })
    return {
      id,
      inputs_digest: digest,
      same_inputs_as_run: repo.earlierRunWithDigest(digest, id),
      created_at: createdAt,
      elapsed_ms: round(fields.elapsedMs, 3),
    }
  }

  return { record }
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits
