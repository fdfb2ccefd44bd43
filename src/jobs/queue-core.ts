// What every queue backend does the same way, on the job rows: storing a submission once (Idempotency-Key replays
// decided by the database), the result endpoint's outcome, a final row as a waiting request gets it, purging, counts.
import { createHash, randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../sched/clock.js'
import { Refusal, type RefusalBody } from '../http/refusal.js'
import { jsonParts } from '../json/json-writer.js'
import { JsonBytes } from '../json/bytes.js'
import { refusalFrom } from './outcomes.js'
import type { JobRepository } from './repository.js'
import { JOB_STATES, StoredInput, type JobOutcome, type JobRecord, type JobState, type JobStats, type SettledJob, type SubmitAnswer, type SubmitRequest, type DefineOptions } from './types.js'

/** How a queue takes submissions: the owner's share, and which ops give identical inputs the same answer. */
export interface SubmissionRules {
  /** Unfinished jobs one owner may have (JOBS_PER_CLIENT); unbounded when absent. */
  perOwner?: number
  /**
   * Ops whose answer is a function of their input alone (nothing measured in it): an identical submission of the same
   * owner, without an Idempotency-Key, shares the job already queued, running or succeeded (and its stored answer)
   * instead of storing another copy.
   */
  shared?: (op: string) => DefineOptions | undefined
}

/**
 * Stores a submission as a queued row, or answers the job its Idempotency-Key already names (here or on another
 * replica: the unique index decides a race), or the identical job it shares. A new job must fit its owner's share
 * (perOwner unfinished jobs, counted in the database so every replica sees the same count), then `admit` (the global
 * bound) may refuse it.
 */
export async function storeSubmission(
  repo: JobRepository, request: SubmitRequest, clock: Clock, rules: SubmissionRules, admit: () => void | Promise<void>,
): Promise<SubmitAnswer & { json: JsonBytes }> {
  const { perOwner } = rules
  const { inputParts, inputDigest } = await storedForm(request)
  const json = new JsonBytes(inputParts)
  const key = request.idempotencyKey ?? null
  const existing = key !== null
    ? await sameKeyJob(repo, request, key, inputDigest)
    : await sharedJob(repo, request, inputDigest, rules.shared?.(request.op))
  if (existing) return { job: existing, created: false, json }
  if (perOwner !== undefined && (await repo.unfinishedOf(request.owner)) >= perOwner) {
    throw new Refusal('occupied', `this client already has ${perOwner} unfinished jobs (JOBS_PER_CLIENT, its share of the queue); ` +
      'wait for one to end or cancel one', { op: request.op, retryAfterS: 2, hints: { limit: 'JOBS_PER_CLIENT', value: perOwner } })
  }
  await admit()
  const id = randomUUID()
  const job = await repo.insert({ id, op: request.op, surface: request.surface, owner: request.owner, inputParts, inputDigest, idempotencyKey: key, createdAt: clock.now() })
  if (job) return { job, created: true, json }
  // The same key won a race with this submission (here or on another replica) since sameKeyJob looked.
  const winner = key === null ? null : await sameKeyJob(repo, request, key, inputDigest)
  if (!winner) throw new Error(`job ${id} was not stored`)
  return { job: winner, created: false, json }
}

/**
 * The input's JSON in parts and its digest (the whole text's: replays compare it). A StoredInput comes written and
 * hashed (a large body's, in the mill); a value (a small body's, a /run item's, an MCP call's) is written, encoded and
 * hashed here, a part a turn.
 */
async function storedForm({ op, input }: SubmitRequest): Promise<{ inputParts: readonly Uint8Array[]; inputDigest: string }> {
  if (input instanceof StoredInput) return { inputParts: input.json.chunks, inputDigest: input.digest }
  const hash = createHash('sha256').update(op).update('\0')
  const inputParts: Uint8Array[] = []
  for await (const part of jsonParts(input ?? null)) {
    const bytes = Buffer.from(part)
    hash.update(bytes)
    inputParts.push(bytes)
  }
  return { inputParts, inputDigest: hash.digest('hex') }
}

/** The identical job of the same owner a submission shares (DefineOptions), while what its answer stands on stands. */
async function sharedJob(repo: JobRepository, request: SubmitRequest, inputDigest: string, options: DefineOptions | undefined): Promise<JobRecord | null> {
  if (!options?.shared) return null
  const job = await repo.sameInput(request.surface, request.owner, inputDigest)
  if (job?.effect && options.stands && !(await options.stands(job.effect, job.owner))) return null
  return job
}

/** The job an Idempotency-Key already names among its owner's, or null; the same key with another op or input is refused. */
async function sameKeyJob(repo: JobRepository, request: SubmitRequest, key: string, inputDigest: string): Promise<JobRecord | null> {
  const existing = await repo.byKey(request.surface, request.owner, key)
  if (!existing) return null
  if (existing.inputDigest !== inputDigest) {
    throw new Refusal('conflict', `Idempotency-Key ${JSON.stringify(key)} was used for job ${existing.id} with another operation or input`, {
      op: request.op,
      hints: { job: existing.id },
    })
  }
  return existing
}

/** What a job's result endpoint answers, from its row. */
export async function outcomeOf(repo: JobRepository, id: string): Promise<JobOutcome> {
  const job = await repo.get(id)
  if (!job) return { kind: 'unknown' }
  if (job.purgedAt !== null) return { kind: 'purged', finishedAt: job.finishedAt!, purgedAt: job.purgedAt }
  if (job.state === 'succeeded') return { kind: 'succeeded', result: await repo.result(id) }
  if (job.state === 'failed' || job.state === 'cancelled') return { kind: job.state, refuse: job.refuse! }
  return { kind: 'pending', state: job.state }
}

/** A final row as a waiting request gets it: the stored answer, or the stored refusal thrown again. */
export async function settledFromRow(repo: JobRepository, job: JobRecord): Promise<SettledJob> {
  return job.state === 'succeeded'
    ? { job, ok: true, result: await repo.result(job.id) }
    : { job, ok: false, error: refusalFrom(job.refuse!) }
}

/** The refusal of a job whose run was interrupted (its process died or stopped) on its second attempt. */
export function interruptedTwice(op: string): RefusalBody {
  return { code: 'internal', reason: 'interrupted by a restart (twice): the job is not run a third time', op, http_status: 500 }
}

/** Shutting down: every request waiting on a job is answered `occupied` (the job runs after the restart or elsewhere). */
export async function failWaiters(repo: JobRepository, waiters: Map<string, Array<(settled: SettledJob) => void>>, goesOn = 'after the restart'): Promise<void> {
  const shutdown = new Refusal('occupied', `the host is shutting down; the job will run ${goesOn}`, { retryAfterS: 5 })
  const waiting = [...waiters]
  waiters.clear()
  for (const [id, list] of waiting) {
    const job = await repo.get(id)
    for (const resolve of list) if (job) resolve({ job, ok: false, error: shutdown })
  }
}

const PURGE_EVERY_MS = 60_000

/** Purges finished jobs past the retention (age, and count when maxJobs > 0): at most once a second on reads, and every minute by a timer. */
export function createPurger(repo: JobRepository, clock: Clock, retentionMs: number, log?: FastifyBaseLogger, maxJobs = 0) {
  let lastPurge = Number.NEGATIVE_INFINITY
  let timer: NodeJS.Timeout | undefined
  async function maybePurge(): Promise<void> {
    const now = clock.now()
    if (now - lastPurge < 1000) return
    lastPurge = now
    await repo.purge(now, retentionMs, maxJobs)
  }
  return {
    maybePurge,
    /** Runs `every` beside the purge on the same minute timer (a backend's own upkeep). */
    start(every?: () => Promise<void>) {
      timer = setInterval(() => {
        maybePurge().catch((err: unknown) => log?.warn({ err }, 'job purge failed'))
        every?.().catch((err: unknown) => log?.warn({ err }, 'job upkeep failed'))
      }, PURGE_EVERY_MS)
      timer.unref()
    },
    async purgeNow(): Promise<number> {
      lastPurge = clock.now()
      return repo.purge(lastPurge, retentionMs, maxJobs)
    },
    stop: () => clearInterval(timer),
  }
}

/** The stored half of the stats: jobs by state and the throughput of the last 15 minutes. */
export async function storedStats(repo: JobRepository, now: number): Promise<Pick<JobStats, 'by_state' | 'throughput_per_min' | 'finished_last_15_min'>> {
  const byState = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>
  for (const row of await repo.countByState()) byState[row.state] = row.count
  const finished = await repo.finishedSince(now - 15 * 60_000)
  return { by_state: byState, throughput_per_min: finished / 15, finished_last_15_min: finished }
}
