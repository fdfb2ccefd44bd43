// The jobs table (migration 0005): rows in, records out; every state change is one conditional UPDATE, so a job
// reaches a final state once even if two runs race (the second finds the row no longer `running`).
import type { Db } from '../store/index.js'
import { keysetQuery } from '../store/keyset.js'
import type { RefusalBody } from '../refusal.js'
import type { JobProgress, JobRecord, JobState, JobSurface } from './types.js'

interface JobRow {
  n: number
  id: string
  op: string
  surface: JobSurface
  state: JobState
  input: string | null
  input_digest: string
  idempotency_key: string | null
  attempts: number
  progress: string | null
  result: string | null
  refuse: string | null
  created_at: number
  started_at: number | null
  finished_at: number | null
  purged_at: number | null
}

export const QUEUED_PROGRESS: JobProgress = { fraction: null, phase: 'queued', done: null, total: null, eta_s: null, counters: {} }

const COLUMNS = 'n, id, op, surface, state, input, input_digest, idempotency_key, attempts, progress, refuse, created_at, started_at, finished_at, purged_at'

function recordOf(row: JobRow): JobRecord {
  return {
    id: row.id,
    op: row.op,
    surface: row.surface,
    state: row.state,
    input: row.input === null ? null : JSON.parse(row.input),
    inputDigest: row.input_digest,
    idempotencyKey: row.idempotency_key,
    attempts: row.attempts,
    progress: row.progress ? (JSON.parse(row.progress) as JobProgress) : QUEUED_PROGRESS,
    refuse: row.refuse ? (JSON.parse(row.refuse) as RefusalBody) : null,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    purgedAt: row.purged_at,
  }
}

export type JobRepository = ReturnType<typeof createJobRepository>

export function createJobRepository(db: Db) {
  const insert = db.prepare(`INSERT INTO jobs (id, op, surface, state, input, input_digest, idempotency_key, created_at)
    VALUES (@id, @op, @surface, 'queued', @input, @input_digest, @idempotency_key, @created_at)`)
  const byId = db.prepare<[string], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`)
  const byKey = db.prepare<[JobSurface, string], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE surface = ? AND idempotency_key = ?`)
  const resultOf = db.prepare<[string], { result: string | null }>('SELECT result FROM jobs WHERE id = ?')
  const start = db.prepare<[number, string]>(
    "UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?, progress = NULL WHERE id = ? AND state = 'queued'",
  )
  const finish = db.prepare<{ id: string; state: JobState; result: string | null; refuse: string | null; progress: string; finished_at: number }>(
    `UPDATE jobs SET state = @state, result = @result, refuse = @refuse, progress = @progress, finished_at = @finished_at
     WHERE id = @id AND state IN ('queued', 'running')`,
  )
  const inState = db.prepare<[JobState], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE state = ? ORDER BY n`)
  const requeue = db.prepare<[string]>("UPDATE jobs SET state = 'queued' WHERE id = ? AND state = 'running'")
  const purge = db.prepare<[number, number]>(
    'UPDATE jobs SET input = NULL, result = NULL, purged_at = ? WHERE purged_at IS NULL AND finished_at IS NOT NULL AND finished_at <= ?',
  )
  // Tombstones (id, op, times) stay so a purged job can say it was purged; they go after ten retention periods.
  const forget = db.prepare<[number]>('DELETE FROM jobs WHERE purged_at IS NOT NULL AND finished_at <= ?')
  const countByState = db.prepare<[], { state: JobState; count: number }>(
    'SELECT state, COUNT(*) AS count FROM jobs WHERE purged_at IS NULL GROUP BY state',
  )
  const pageQuery = keysetQuery<JobRow>(db, {
    select: `SELECT ${COLUMNS} FROM jobs`,
    where: ['purged_at IS NULL', '(@state IS NULL OR state = @state)', '(@op IS NULL OR op = @op)'],
    key: ['n'],
    order: 'desc',
  })
  const finishedSince = db.prepare<[number], { count: number }>('SELECT COUNT(*) AS count FROM jobs WHERE finished_at >= ?')

  return {
    /** `inputText` is the input already serialised (the queue hashed the same text). */
    insert(job: { id: string; op: string; surface: JobSurface; inputText: string; inputDigest: string; idempotencyKey: string | null; createdAt: number }): void {
      insert.run({
        id: job.id, op: job.op, surface: job.surface, input: job.inputText, input_digest: job.inputDigest,
        idempotency_key: job.idempotencyKey, created_at: job.createdAt,
      })
    },
    get: (id: string): JobRecord | null => {
      const row = byId.get(id)
      return row ? recordOf(row) : null
    },
    byKey: (surface: JobSurface, key: string): JobRecord | null => {
      const row = byKey.get(surface, key)
      return row ? recordOf(row) : null
    },
    result: (id: string): unknown => {
      const row = resultOf.get(id)
      return row?.result == null ? null : JSON.parse(row.result)
    },
    /** queued → running; false when the job is no longer queued (cancelled meanwhile). */
    start: (id: string, now: number): boolean => start.run(now, id).changes === 1,
    /** → a final state; false when the job already was final. */
    finish(id: string, state: JobState, fields: { result?: unknown; refuse?: RefusalBody | null; progress: JobProgress; now: number }): boolean {
      return finish.run({
        id,
        state,
        result: fields.result === undefined ? null : JSON.stringify(fields.result),
        refuse: fields.refuse ? JSON.stringify(fields.refuse) : null,
        progress: JSON.stringify(fields.progress),
        finished_at: fields.now,
      }).changes === 1
    },
    inState: (state: JobState): JobRecord[] => inState.all(state).map(recordOf),
    requeue: (id: string): boolean => requeue.run(id).changes === 1,
    /** Newest first; rows carry their sort key `n` for the cursor. */
    page(filter: { state?: JobState | undefined; op?: string | undefined }, after: readonly (string | number)[] | null, limit: number) {
      return pageQuery({ state: filter.state ?? null, op: filter.op ?? null }, after, limit).map((row) => ({ n: row.n, job: recordOf(row) }))
    },
    purge(now: number, retentionMs: number): number {
      const purged = purge.run(now, now - retentionMs).changes
      forget.run(now - 10 * retentionMs)
      return purged
    },
    countByState: () => countByState.all(),
    finishedSince: (since: number): number => finishedSince.get(since)?.count ?? 0,
  }
}
