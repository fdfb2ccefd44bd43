// The jobs table (migration 0005) over Sql, so every queue backend (in-process, BullMQ) keeps its records the same
// way on SQLite or PostgreSQL. Every state change is one conditional UPDATE … RETURNING: a job reaches a final state
// once even when two runs (or two replicas) race, and the winner gets the new row in the same statement. Inputs and
// answers are kept apart, in parts (parts.ts, migration 0007), written before the row that makes them visible.
import type { RefusalBody } from '../http/refusal.js'
import { keysetPages } from '../store/keyset.js'
import type { Sql } from '../store/sql.js'
import { inTurns } from '../sched/turns.js'
import { createOrphanSweep, deleteParts, readBytes, writeParts } from './parts.js'
import { JsonBytes } from '../json/bytes.js'
import type { JobProgress, JobRecord, JobState, JobSurface } from './types.js'

interface JobRow {
  n: number
  id: string
  op: string
  surface: JobSurface
  owner: string
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
  sealed_at: number | null
  effect: string | null
}

export const QUEUED_PROGRESS: JobProgress = { fraction: null, phase: 'queued', done: null, total: null, eta_s: null, counters: {} }

/**
 * A principal's jobs whose id starts with a prefix: a range of the unique index on id (byte order on both backends:
 * PostgreSQL's id is COLLATE "C"), so an anonymous lookup reads the few rows in range, never every row of the table.
 */
export const ID_PREFIX_SQL = 'SELECT id FROM jobs WHERE id >= @from AND id < @to AND (owner = @owner OR @owner IS NULL) ORDER BY id LIMIT @limit'

/** The ids a prefix of lowercase hex and dashes starts: [prefix, prefix with its last character the next one). */
export function idPrefixRange(prefix: string): { from: string; to: string } {
  if (!/^[0-9a-f-]+$/.test(prefix)) throw new Error(`not an id prefix: ${prefix}`)
  return { from: prefix, to: prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1) }
}

// A row is read on every poll and watch of a job; its input and answer (megabytes, maybe) are parts, read apart.
const COLUMNS = 'n, id, op, surface, owner, state, input_digest, idempotency_key, attempts, progress, refuse, created_at, started_at, finished_at, purged_at, sealed_at, effect'

export interface NewJob {
  id: string
  op: string
  surface: JobSurface
  owner: string
  /** The input's JSON text in parts (as the queue hashed it: queue-core.ts storedForm). */
  inputParts: ReadonlyArray<string | Uint8Array>
  inputDigest: string
  idempotencyKey: string | null
  createdAt: number
}

export interface JobFinal {
  /** A succeeded run's answer, as its route writes it. */
  result?: JsonBytes
  refuse?: RefusalBody | null
  /** What a succeeded run's answer stands on (JobRecord.effect). */
  effect?: string | null
  progress: JobProgress
  now: number
}

/**
 * Job records in the database; times are epoch ms. A state change or read of a row is one statement; an input or
 * answer is a statement per part with a loop turn between (one part for all but large texts).
 */
export interface JobRepository {
  /**
   * The new queued job, or null when its Idempotency-Key already names a job of its owner (read that with byKey).
   * The input's parts are written first, so a row never lacks them; a submission that loses its key's race removes its.
   */
  insert(job: NewJob): Promise<JobRecord | null>
  get(id: string): Promise<JobRecord | null>
  /** Ids that start with `prefix` (lowercase hex and dashes only) among `owner`'s jobs (every job's when null), in id order, at most `limit`. */
  idsStartingWith(prefix: string, limit: number, owner: string | null): Promise<string[]>
  byKey(surface: JobSurface, owner: string, key: string): Promise<JobRecord | null>
  /** The owner's jobs not final (queued or running): its share of the queue. */
  unfinishedOf(owner: string): Promise<number>
  /** The owner's newest kept job of this surface and input digest (op included) that is queued, running or succeeded. */
  sameInput(surface: JobSurface, owner: string, inputDigest: string): Promise<JobRecord | null>
  /**
   * Marks a running job's effects written, inside the transaction `tx` that writes them: false when the job is no
   * longer running (a cancel won), and the caller rolls its effects back.
   */
  seal(tx: Sql, id: string, now: number): Promise<boolean>
  /** The stored answer of a succeeded job as its bytes (null before, or once purged): sent as it is, never parsed. */
  result(id: string): Promise<JsonBytes | null>
  /** The stored input's JSON (null once purged): for a run whose submission was not made in this process, or a restart. */
  input(id: string): Promise<JsonBytes | null>
  /** queued → running (one more attempt); the running job, or null when it was no longer queued (cancelled meanwhile). */
  start(id: string, now: number): Promise<JobRecord | null>
  /**
   * queued | running → a final state; the final job, or null when it already was final (or, for `cancelled`, sealed).
   * An answer's parts are written before the UPDATE (and removed again when another end won meanwhile).
   */
  finish(id: string, state: JobState, fields: JobFinal): Promise<JobRecord | null>
  /** running → queued (a run interrupted by a restart); false when it was not running. */
  requeue(id: string): Promise<boolean>
  /** Oldest first. */
  inState(state: JobState): Promise<JobRecord[]>
  /** Newest first; rows carry their sort key `n` for the cursor. */
  page(filter: { state?: JobState | undefined; op?: string | undefined }, after: readonly (string | number)[] | null, limit: number): Promise<Array<{ n: number; job: JobRecord }>>
  /**
   * Drops inputs and answers of jobs finished longer than retentionMs ago, and of finished jobs past the newest
   * `maxJobs` (0: no count limit); returns how many. Also removes parts left without a live row for ORPHAN_AFTER_MS (a
   * crash between a job's parts and its row, or in a purge), looking at a bounded slice of the parts each time.
   */
  purge(now: number, retentionMs: number, maxJobs?: number): Promise<number>
  /** Jobs kept (not purged) and the oldest one's creation time: the readiness report's job retention. */
  kept(): Promise<{ jobs: number; oldestAt: number | null }>
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
  const sweepOrphans = createOrphanSweep(sql)
  /**
   * Writes a job's answer unless the job already is final (its answer, if any, is another run's). Parts of an earlier
   * finish cut short (the process died between them and the UPDATE) are removed first.
   */
  async function answerWritten(id: string, result: JsonBytes, now: number): Promise<boolean> {
    const row = await sql.get<{ state: JobState; leftover: number | boolean }>(
      "SELECT state, EXISTS (SELECT 1 FROM job_parts WHERE job_id = @id AND kind = 'result') AS leftover FROM jobs WHERE id = @id",
      { id },
    )
    if (!row || (row.state !== 'queued' && row.state !== 'running')) return false
    if (row.leftover) await deleteParts(sql, id, 'result')
    await writeParts(sql, id, 'result', result.chunks, now)
    return true
  }
  const one = async (text: string, params: Record<string, unknown> | unknown[]): Promise<JobRecord | null> => {
    const row = await sql.get<JobRow>(text, params)
    return row ? recordOf(row) : null
  }

  return {
    async insert(job) {
      await writeParts(sql, job.id, 'input', job.inputParts, job.createdAt)
      // A key two submissions (or replicas) race on is decided by the unique index: the loser inserts nothing.
      const row = await one(
        `INSERT INTO jobs (id, op, surface, owner, state, input_digest, idempotency_key, created_at)
         VALUES (@id, @op, @surface, @owner, 'queued', @input_digest, @idempotency_key, @created_at)
         ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
        { id: job.id, op: job.op, surface: job.surface, owner: job.owner, input_digest: job.inputDigest, idempotency_key: job.idempotencyKey, created_at: job.createdAt },
      )
      if (!row) await deleteParts(sql, job.id, 'input')
      return row
    },
    get: (id) => one(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`, [id]),
    async idsStartingWith(prefix, limit, owner) {
      const rows = await sql.all<{ id: string }>(ID_PREFIX_SQL, { ...idPrefixRange(prefix), limit, owner })
      return rows.map((row) => row.id)
    },
    byKey: (surface, owner, key) => one(`SELECT ${COLUMNS} FROM jobs WHERE surface = ? AND owner = ? AND idempotency_key = ?`, [surface, owner, key]),
    async unfinishedOf(owner) {
      const row = await sql.get<{ count: number | string }>("SELECT count(*) AS count FROM jobs WHERE owner = ? AND state IN ('queued', 'running')", [owner])
      return Number(row?.count ?? 0)
    },
    sameInput: (surface, owner, inputDigest) => one(
      `SELECT ${COLUMNS} FROM jobs WHERE owner = ? AND input_digest = ? AND surface = ? AND purged_at IS NULL
       AND state IN ('queued', 'running', 'succeeded') ORDER BY n DESC LIMIT 1`,
      [owner, inputDigest, surface],
    ),
    async kept() {
      const row = await sql.get<{ n: number | string; oldest: number | string | null }>(
        'SELECT count(*) AS n, min(created_at) AS oldest FROM jobs WHERE purged_at IS NULL',
      )
      return { jobs: Number(row?.n ?? 0), oldestAt: numberOrNull(row?.oldest ?? null) }
    },
    async seal(tx, id, now) {
      return (await tx.run("UPDATE jobs SET sealed_at = ? WHERE id = ? AND state = 'running'", [now, id])).changes === 1
    },
    result: (id) => readBytes(sql, id, 'result'),
    input: (id) => readBytes(sql, id, 'input'),
    start: (id, now) => one(
      `UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?, progress = NULL
       WHERE id = ? AND state = 'queued' RETURNING ${COLUMNS}`,
      [now, id],
    ),
    async finish(id, state, fields) {
      const answered = fields.result !== undefined
      if (fields.result !== undefined && !(await answerWritten(id, fields.result, fields.now))) return null
      const final = await one(
        `UPDATE jobs SET state = @state, refuse = @refuse, progress = @progress, finished_at = @finished_at, effect = @effect
         WHERE id = @id AND state IN ('queued', 'running') AND (sealed_at IS NULL OR @state <> 'cancelled') RETURNING ${COLUMNS}`,
        {
          id,
          state,
          refuse: fields.refuse ? JSON.stringify(fields.refuse) : null,
          progress: JSON.stringify(fields.progress),
          finished_at: fields.now,
          effect: fields.effect ?? null,
        },
      )
      // Another end (a cancel) won since answerWritten looked: the answer belongs to no one.
      if (!final && answered) await deleteParts(sql, id, 'result')
      return final
    },
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
    async purge(now, retentionMs, maxJobs = 0) {
      const purged = await sql.all<{ id: string }>(
        'UPDATE jobs SET purged_at = ? WHERE purged_at IS NULL AND finished_at IS NOT NULL AND finished_at <= ? RETURNING id',
        [now, now - retentionMs],
      )
      if (maxJobs > 0) {
        // Past the newest maxJobs jobs, finished ones lose their input and answer too (a flood of submissions is bounded).
        purged.push(...await sql.all<{ id: string }>(
          `UPDATE jobs SET purged_at = ? WHERE purged_at IS NULL AND finished_at IS NOT NULL
           AND n <= (SELECT n FROM jobs ORDER BY n DESC LIMIT 1 OFFSET ?) RETURNING id`,
          [now, maxJobs],
        ))
        await sql.run('DELETE FROM jobs WHERE purged_at IS NOT NULL AND n <= (SELECT n FROM jobs ORDER BY n DESC LIMIT 1 OFFSET ?)', [10 * maxJobs])
      }
      // Tombstones (id, op, times) stay so a purged job can say it was purged; they go after ten retention periods.
      await sql.run('DELETE FROM jobs WHERE purged_at IS NOT NULL AND finished_at <= ?', [now - 10 * retentionMs])
      const orphans = await sweepOrphans(now)
      for await (const id of inTurns([...purged.map((row) => row.id), ...orphans])) await deleteParts(sql, id)
      return purged.length
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
    owner: row.owner,
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
    sealedAt: numberOrNull(row.sealed_at),
    effect: row.effect ?? null,
  }
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value))
