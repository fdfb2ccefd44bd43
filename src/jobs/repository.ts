// The jobs table (migration 0005) over Sql, so every queue backend (in-process, BullMQ) keeps its records the same
// way on SQLite or PostgreSQL. Every state change is one conditional UPDATE … RETURNING: a job reaches a final state
// once even when two runs (or two replicas) race, and the winner gets the new row in the same statement.
import type { RefusalBody } from '../refusal.js'
import { keysetPages } from '../store/keyset.js'
import type { Sql } from '../store/sql.js'
import type { JobProgress, JobRecord, JobState, JobSurface } from './types.js'

interface JobRow {
  n: number
  id: string
  op: string
  surface: JobSurface
  state: JobState
  input_digest: string
  idempotency_key: string | null
  attempts: number
  progress: string | null
  refuse: string | null
  created_at: number
  started_at: number | null
  finished_at: number | null
  purged_at: number | null
}

export const QUEUED_PROGRESS: JobProgress = { fraction: null, phase: 'queued', done: null, total: null, eta_s: null, counters: {} }

// Without the input: a row is read on every poll and watch of a job, and an input may be megabytes (parsed once, by
// start, for the run).
const COLUMNS = 'n, id, op, surface, state, input_digest, idempotency_key, attempts, progress, refuse, created_at, started_at, finished_at, purged_at'

export interface NewJob {
  id: string
  op: string
  surface: JobSurface
  /** The input already serialised (the queue hashed the same text). */
  inputText: string
  inputDigest: string
  idempotencyKey: string | null
  createdAt: number
}

export interface JobFinal {
  result?: unknown
  refuse?: RefusalBody | null
  progress: JobProgress
  now: number
}

/** Job records in the database; times are epoch ms. Every method is one statement (purge: two). */
export interface JobRepository {
  /** The new queued job, or null when its Idempotency-Key already names a job of its surface (read that with byKey). */
  insert(job: NewJob): Promise<JobRecord | null>
  get(id: string): Promise<JobRecord | null>
  byKey(surface: JobSurface, key: string): Promise<JobRecord | null>
  /** The stored answer of a succeeded job (null before, or once purged). */
  result(id: string): Promise<unknown>
  /** queued → running (one more attempt); the running job, or null when it was no longer queued (cancelled meanwhile). */
  start(id: string, now: number): Promise<{ job: JobRecord; input: unknown } | null>
  /** queued | running → a final state; the final job, or null when it already was final. */
  finish(id: string, state: JobState, fields: JobFinal): Promise<JobRecord | null>
  /** running → queued (a run interrupted by a restart); false when it was not running. */
  requeue(id: string): Promise<boolean>
  /** Oldest first. */
  inState(state: JobState): Promise<JobRecord[]>
  /** Newest first; rows carry their sort key `n` for the cursor. */
  page(filter: { state?: JobState | undefined; op?: string | undefined }, after: readonly (string | number)[] | null, limit: number): Promise<Array<{ n: number; job: JobRecord }>>
  /** Drops inputs and answers of jobs finished longer than retentionMs ago; returns how many. */
  purge(now: number, retentionMs: number): Promise<number>
  /** Jobs not purged, counted by state. */
  countByState(): Promise<Array<{ state: JobState; count: number }>>
  finishedSince(since: number): Promise<number>
}

export function createJobRepository(sql: Sql): JobRepository {
  const pageQuery = keysetPages<JobRow>(sql, {
    select: `SELECT ${COLUMNS} FROM jobs`,
    where: ['purged_at IS NULL', '(state = @state OR @state IS NULL)', '(op = @op OR @op IS NULL)'],
    key: ['n'],
    order: 'desc',
  })
  const one = async (text: string, params: Record<string, unknown> | unknown[]): Promise<JobRecord | null> => {
    const row = await sql.get<JobRow>(text, params)
    return row ? recordOf(row) : null
  }

  return {
    insert: (job) => one(
      // A key two submissions (or replicas) race on is decided by the unique index: the loser inserts nothing.
      `INSERT INTO jobs (id, op, surface, state, input, input_digest, idempotency_key, created_at)
       VALUES (@id, @op, @surface, 'queued', @input, @input_digest, @idempotency_key, @created_at)
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      {
        id: job.id, op: job.op, surface: job.surface, input: job.inputText, input_digest: job.inputDigest,
        idempotency_key: job.idempotencyKey, created_at: job.createdAt,
      },
    ),
    get: (id) => one(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`, [id]),
    byKey: (surface, key) => one(`SELECT ${COLUMNS} FROM jobs WHERE surface = ? AND idempotency_key = ?`, [surface, key]),
    async result(id) {
      const row = await sql.get<{ result: string | null }>('SELECT result FROM jobs WHERE id = ?', [id])
      return row?.result == null ? null : JSON.parse(row.result)
    },
    async start(id, now) {
      const row = await sql.get<JobRow & { input: string }>(
        `UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?, progress = NULL
         WHERE id = ? AND state = 'queued' RETURNING ${COLUMNS}, input`,
        [now, id],
      )
      return row ? { job: recordOf(row), input: JSON.parse(row.input) } : null
    },
    finish: (id, state, fields) => one(
      `UPDATE jobs SET state = @state, result = @result, refuse = @refuse, progress = @progress, finished_at = @finished_at
       WHERE id = @id AND state IN ('queued', 'running') RETURNING ${COLUMNS}`,
      {
        id,
        state,
        result: fields.result === undefined ? null : JSON.stringify(fields.result),
        refuse: fields.refuse ? JSON.stringify(fields.refuse) : null,
        progress: JSON.stringify(fields.progress),
        finished_at: fields.now,
      },
    ),
    async requeue(id) {
      return (await sql.run("UPDATE jobs SET state = 'queued' WHERE id = ? AND state = 'running'", [id])).changes === 1
    },
    async inState(state) {
      return (await sql.all<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE state = ? ORDER BY n`, [state])).map(recordOf)
    },
    async page(filter, after, limit) {
      const rows = await pageQuery({ state: filter.state ?? null, op: filter.op ?? null }, after, limit)
      return rows.map((row) => ({ n: Number(row.n), job: recordOf(row) }))
    },
    async purge(now, retentionMs) {
      const purged = await sql.run(
        'UPDATE jobs SET input = NULL, result = NULL, purged_at = ? WHERE purged_at IS NULL AND finished_at IS NOT NULL AND finished_at <= ?',
        [now, now - retentionMs],
      )
      // Tombstones (id, op, times) stay so a purged job can say it was purged; they go after ten retention periods.
      await sql.run('DELETE FROM jobs WHERE purged_at IS NOT NULL AND finished_at <= ?', [now - 10 * retentionMs])
      return purged.changes
    },
    async countByState() {
      const rows = await sql.all<{ state: JobState; count: number | string }>(
        'SELECT state, COUNT(*) AS count FROM jobs WHERE purged_at IS NULL GROUP BY state',
      )
      return rows.map((row) => ({ state: row.state, count: Number(row.count) }))
    },
    async finishedSince(since) {
      const row = await sql.get<{ count: number | string }>('SELECT COUNT(*) AS count FROM jobs WHERE finished_at >= ?', [since])
      return Number(row?.count ?? 0)
    },
  }
}

// PostgreSQL answers BIGINT (epoch ms, counts) as text; numbers are read with Number() so both backends agree.
function recordOf(row: JobRow): JobRecord {
  return {
    id: row.id,
    op: row.op,
    surface: row.surface,
    state: row.state,
    inputDigest: row.input_digest,
    idempotencyKey: row.idempotency_key,
    attempts: Number(row.attempts),
    progress: row.progress ? (JSON.parse(row.progress) as JobProgress) : QUEUED_PROGRESS,
    refuse: row.refuse ? (JSON.parse(row.refuse) as RefusalBody) : null,
    createdAt: Number(row.created_at),
    startedAt: numberOrNull(row.started_at),
    finishedAt: numberOrNull(row.finished_at),
    purgedAt: numberOrNull(row.purged_at),
  }
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value))
