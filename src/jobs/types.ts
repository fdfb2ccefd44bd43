// The job vocabulary shared by every queue backend: serialisable records, progress, events, and the queue interface.
// Everything here is plain JSON so a distributed backend (BullMQ + PostgreSQL) can carry it unchanged.
import { z } from 'zod'
import { refusalSchema, type RefusalBody } from '../http/refusal.js'
import type { Page, PageQuery } from '../http/paging.js'
import type { JsonBytes } from '../json/bytes.js'

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type JobState = (typeof JOB_STATES)[number]
export const FINAL_STATES: ReadonlySet<JobState> = new Set(['succeeded', 'failed', 'cancelled'])
export const isFinal = (state: JobState): boolean => FINAL_STATES.has(state)

/** Which surface submitted the job: it decides the Location prefix and the answer's framing. */
export type JobSurface = 'caller' | 'trading'

export const jobProgressSchema = z.object({
  /** done / total when the work has a known total; null otherwise (never invented). */
  fraction: z.number().min(0).max(1).nullable(),
  phase: z.string(),
  done: z.number().nullable(),
  total: z.number().nullable(),
  eta_s: z.number().nullable(),
  /** Engine counters without a total (SAT: conflicts, decisions, restarts, learned; searches: folds). */
  counters: z.record(z.string(), z.number()),
})
export type JobProgress = z.infer<typeof jobProgressSchema>

export const jobViewSchema = z.object({
  id: z.string(),
  op: z.string(),
  state: z.enum(JOB_STATES),
  progress: jobProgressSchema,
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /** Where the answer is read once the job succeeded (null before). */
  result_url: z.string().nullable(),
  /** Where the job is cancelled (DELETE) while it is queued or running; null once it is final. */
  cancel_url: z.string().nullable(),
  refuse: refusalSchema.nullable(),
  attempts: z.number().int(),
  url: z.string(),
  events_url: z.string(),
})
export type JobView = z.infer<typeof jobViewSchema>

/** The stored form of a job (one row). Times are epoch ms. */
export interface JobRecord {
  id: string
  op: string
  surface: JobSurface
  /** The principal that submitted it (src/access/policy.ts Principal.owner): who may read and cancel it. */
  owner: string
  state: JobState
  inputDigest: string
  idempotencyKey: string | null
  attempts: number
  progress: JobProgress
  refuse: RefusalBody | null
  createdAt: number
  startedAt: number | null
  finishedAt: number | null
  purgedAt: number | null
  /** When its run wrote its effects (a research run) in the transaction that sealed it; a cancel no longer wins. */
  sealedAt: number | null
  /** What a succeeded run's answer stands on, such as `run:12` (src/jobs/effects.ts); null when it stands alone. */
  effect: string | null
}

/** Published on the job's channel: every progress change and state change; a final event carries the outcome. */
export interface JobEvent {
  /** Increases per job within a process; SSE sends it as the event id. */
  seq: number
  type: 'queued' | 'running' | 'progress' | JobState
  job: JobRecord
  /** With `succeeded`: the answer. */
  result?: JsonBytes
}

export interface DefineOptions {
  /**
   * The answer is a function of the input alone (nothing measured in it): an identical submission of the same owner,
   * without an Idempotency-Key, shares the job already queued, running or succeeded instead of storing another copy.
   */
  shared?: boolean
  /**
   * The executor reads a large input from its JSON bytes (in the mill): an input stored or submitted as bytes
   * (StoredInput) over LOOP_VALUE_MAX_BYTES reaches it as JsonBytes. Without it every input is handed as a value.
   */
  storedBytes?: boolean
  /**
   * Whether a shared job's effect (JobRecord.effect) still stands: a job whose answer names something since deleted
   * is not shared, and the submission runs anew. Without it, effects always stand.
   */
  stands?: (effect: string, owner: string) => Promise<boolean>
}

export interface SubmitRequest {
  op: string
  surface: JobSurface
  /** Who submits it (Principal.owner): its Idempotency-Key is looked up among this owner's jobs only. */
  owner: string
  /** The parsed input (it must survive JSON: it is stored and re-run after a restart), or its JSON as stored (StoredInput). */
  input: unknown
  idempotencyKey?: string | null
}

export interface SubmitAnswer {
  job: JobRecord
  /** False when an Idempotency-Key replay returned an existing job. */
  created: boolean
}

export interface JobListQuery extends PageQuery {
  state?: JobState | undefined
  op?: string | undefined
}

export type JobOutcome =
  | { kind: 'succeeded'; result: JsonBytes | null }
  | { kind: 'failed' | 'cancelled'; refuse: RefusalBody }
  | { kind: 'pending'; state: JobState }
  | { kind: 'purged'; finishedAt: number; purgedAt: number }
  | { kind: 'unknown' }

/**
 * A final job as a waiting request sees it. The in-process backend hands over the very value or error the executor
 * produced (so the sync answer is byte for byte today's); a distributed one rebuilds them from the stored row.
 */
export type SettledJob =
  | { job: JobRecord; ok: true; result: JsonBytes | null }
  | { job: JobRecord; ok: false; error: unknown }

export interface JobStats {
  by_state: Record<JobState, number>
  /** Jobs waiting for a runner: in this process (local), in the queue every replica shares (bullmq). */
  queue_depth: number
  /** Jobs running in this process. */
  running: number
  /** Final jobs per minute over the last 15 minutes. */
  throughput_per_min: number
  finished_last_15_min: number
  /** Durations (ms, run time from start to finish) of jobs finished since start; for the histogram. */
  durations_ms: { count: number; sum: number; buckets: Array<{ le: number; count: number }> }
}

/** What an executor may use while it runs: progress goes to the job's channel, cancellation comes as an abort. */
export interface JobRun {
  jobId: string
  /** Who submitted it (Principal.owner): what the run stores is this owner's. */
  owner: string
  signal: AbortSignal
  /** Budget of this run in ms (JOB_MAX_MS); the run is cancelled past it. */
  maxMs: number
}

/**
 * An input written as its JSON text where it was read (a large body, in the mill: caller/gate.ts), with the digest jobs
 * give an input (SHA-256 of the op, a NUL and the text): stored as it is, never parsed on the loop.
 */
export class StoredInput {
  constructor(
    readonly json: JsonBytes,
    readonly digest: string,
  ) {}
}

/**
 * Runs one operation from its input; throws a Refusal to fail. Pure functions of their input (re-run safe). The input is
 * a value, or its JSON bytes where the executor reads those (DefineOptions.storedBytes); it may be run more than once.
 */
export type JobExecutor = (input: unknown, run: JobRun) => Promise<JsonBytes>

/**
 * The queue: the only way long work runs. Async throughout so a distributed backend fits behind it.
 * Two implementations: in-process (local-queue.ts) and across replicas (bullmq-queue.ts), selected in plugins/jobs.ts.
 */
export interface JobQueue {
  /** `local`: rows and runners in this process; `bullmq`: rows in the database, dispatch and events through Redis. */
  readonly backend: 'local' | 'bullmq'
  /** Registers how an operation is executed; every replica defines the same executors before start(). */
  define(op: string, executor: JobExecutor, options?: DefineOptions): void
  /** Recovers jobs of an earlier process and starts running queued ones. */
  start(): Promise<void>
  /** Refused with `occupied` (Retry-After) past the queue bound, `conflict` when a key is reused with another input. */
  submit(request: SubmitRequest): Promise<SubmitAnswer>
  get(id: string): Promise<JobRecord | null>
  /** Ids of jobs that start with a prefix (lowercase hex and dashes), at most `limit`, in id order. */
  idsStartingWith(prefix: string, limit: number, owner: string | null): Promise<string[]>
  /** Newest first, paged like every list of the host (src/http/paging.ts). */
  list(query: JobListQuery): Promise<Page<JobRecord>>
  /** Stops queued work at once and running work within 200 ms; resolves with the job as it then stands. */
  cancel(id: string): Promise<JobRecord | null>
  outcome(id: string): Promise<JobOutcome>
  /** Resolves when the job is final (the sync path is this wait): the answer, or the error it failed with. */
  settled(id: string): Promise<SettledJob>
  /** Live events of one job; the returned function unsubscribes. */
  subscribe(id: string, listener: (event: JobEvent) => void): () => void
  /** Live events of every job (pages, metrics). */
  subscribeAll(listener: (event: JobEvent) => void): () => void
  /** Purges answers and inputs of jobs finished longer than the retention ago; returns how many. */
  purgeExpired(): Promise<number>
  stats(): Promise<JobStats>
  close(): Promise<void>
}
