// The in-process job queue: rows in SQLite, runners in this process, events on an in-process channel. The mill stays
// the executor; this module owns the state machine queued → running → succeeded | failed | cancelled (the runs
// themselves: local-runner.ts).
import { createHash, randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import { pagedList, type Page } from '../paging.js'
import { Refusal, type RefusalBody } from '../refusal.js'
import type { Store } from '../store/index.js'
import { CANCEL_GRACE_MS } from '../mill/scope.js'
import { createLocalChannel, type JobChannel } from './channel.js'
import { stringifyDeep } from './json.js'
import { createLocalRunner, type LocalRunner } from './local-runner.js'
import { cancelledRefusal, refusalFrom } from './outcomes.js'
import { createJobRepository, type JobRepository } from './repository.js'
import {
  isFinal, JOB_STATES, type JobListQuery, type JobOutcome, type JobQueue, type JobRecord, type JobState, type JobStats,
  type SettledJob, type SubmitAnswer, type SubmitRequest,
} from './types.js'

export { DURATION_BUCKETS_MS } from './durations.js'
export { progressOf, refusalFrom } from './outcomes.js'

export interface LocalQueueOptions {
  store: Store
  clock: Clock
  /** Jobs running at once (the mill's threads: a running job is a busy worker). */
  concurrency: number
  /** Jobs that may wait; past it submissions are refused with `occupied` (the mill's queue bound). */
  maxQueued: number
  retentionMs: number
  /** JOB_MAX_MS: a run is stopped past it and fails with `timeout`. */
  maxRunMs: number
  log?: FastifyBaseLogger
  channel?: JobChannel
}

const PURGE_EVERY_MS = 60_000

export type LocalJobQueue = JobQueue & { readonly channel: JobChannel }

export function createLocalJobQueue(opts: LocalQueueOptions): LocalJobQueue {
  const { store, clock, concurrency, maxQueued, retentionMs, log } = opts
  const repo = createJobRepository(store.sql)
  const channel = opts.channel ?? createLocalChannel()
  const runner = createLocalRunner({ repo, channel, clock, concurrency, maxRunMs: opts.maxRunMs, log })
  const { executors, waiting, active, waiters, flags, withLive, finish, pump } = runner
  const list = pagedList<{ n: number; job: JobRecord }>('jobs', ['integer'], (row) => [row.n])
  let lastPurge = Number.NEGATIVE_INFINITY
  let purgeTimer: NodeJS.Timeout | undefined

  async function maybePurge(): Promise<void> {
    const now = clock.now()
    if (now - lastPurge < 1000) return
    lastPurge = now
    await repo.purge(now, retentionMs)
  }

  const queue: LocalJobQueue = {
    backend: 'local',
    channel,

    define(op, executor) {
      executors.set(op, executor)
    },

    async start() {
      if (flags.started) return
      flags.started = true
      await recoverEarlierJobs(repo, runner)
      await maybePurge()
      purgeTimer = setInterval(() => {
        maybePurge().catch((err: unknown) => log?.warn({ err }, 'job purge failed'))
      }, PURGE_EVERY_MS)
      purgeTimer.unref()
      pump()
    },

    async submit(request: SubmitRequest): Promise<SubmitAnswer> {
      if (flags.closing) throw new Refusal('occupied', 'the host is shutting down', { op: request.op, retryAfterS: 5 })
      if (!executors.has(request.op)) throw new Refusal('not_found', `${request.op} does not run as a job`, { op: request.op })
      // One serialisation serves the digest and the stored row (an input may be megabytes of DIMACS).
      const inputText = stringifyDeep(request.input ?? null)
      const inputDigest = createHash('sha256').update(request.op).update('\0').update(inputText).digest('hex')
      const key = request.idempotencyKey ?? null
      const existing = key !== null ? await sameKeyJob(repo, request, key, inputDigest) : null
      if (existing) return { job: withLive(existing), created: false }
      if (waiting.length >= maxQueued && active.size >= concurrency) {
        throw new Refusal('occupied', `the job queue is full (${maxQueued} waiting jobs)`, { op: request.op, retryAfterS: runner.durations.retryAfterS(waiting.length, concurrency) })
      }
      const id = randomUUID()
      const job = await repo.insert({ id, op: request.op, surface: request.surface, inputText, inputDigest, idempotencyKey: key, createdAt: clock.now() })
      // Null: the same key won a race with this submission (here or on another replica) since sameKeyJob looked.
      if (!job) {
        const winner = key === null ? null : await sameKeyJob(repo, request, key, inputDigest)
        if (!winner) throw new Error(`job ${id} was not stored`)
        return { job: withLive(winner), created: false }
      }
      waiting.push(id)
      runner.publish('queued', job)
      pump()
      return { job: withLive((await repo.get(id))!), created: true }
    },

    async get(id) {
      await maybePurge()
      const job = await repo.get(id)
      return job ? withLive(job) : null
    },

    async list(query: JobListQuery): Promise<Page<JobRecord>> {
      await maybePurge()
      const page = await list.read(query, (request) => repo.page({ state: query.state, op: query.op }, request.after, request.limit))
      return { ...page, rows: page.rows.map((row) => withLive(row.job)) }
    },

    cancel: (id) => cancelJob(repo, runner, id),

    async outcome(id): Promise<JobOutcome> {
      await maybePurge()
      return outcomeOf(repo, id)
    },

    settled: (id) => settledOf(repo, runner, id),

    subscribe: (id, listener) => channel.subscribe(id, listener),
    subscribeAll: (listener) => channel.subscribe('*', listener),

    async purgeExpired() {
      lastPurge = clock.now()
      return repo.purge(lastPurge, retentionMs)
    },

    stats: async () => queueStats(repo, runner, clock.now()),

    async close() {
      flags.closing = true
      clearInterval(purgeTimer)
      for (const live of active.values()) live.controller.abort()
      await failWaiters(repo, runner)
    },
  }
  return queue
}

/** Cancels a job: a waiting one at once; a running one is aborted and given the mill's grace to stop. */
async function cancelJob(repo: JobRepository, runner: LocalRunner, id: string): Promise<JobRecord | null> {
  const { waiting, active, finish, withLive } = runner
  const job = await repo.get(id)
  if (!job || isFinal(job.state)) return job
  const live = active.get(id)
  if (job.state === 'queued' || !live) {
    const at = waiting.indexOf(id)
    if (at >= 0) waiting.splice(at, 1)
    // A run that took the job meanwhile finds it cancelled (its start or finish changes nothing) and stops.
    live?.controller.abort()
    await finish(job, 'cancelled', { refuse: cancelledRefusal(job.op, false) })
  } else {
    live.controller.abort()
    // The mill raises the task's flag and terminates its worker after CANCEL_GRACE_MS: wait a little beyond.
    await Promise.race([live.done, new Promise((resolve) => setTimeout(resolve, CANCEL_GRACE_MS + 150))])
  }
  return withLive((await repo.get(id))!)
}

/** What a job's result endpoint answers, from its row. */
async function outcomeOf(repo: JobRepository, id: string): Promise<JobOutcome> {
  const job = await repo.get(id)
  if (!job) return { kind: 'unknown' }
  if (job.purgedAt !== null) return { kind: 'purged', finishedAt: job.finishedAt!, purgedAt: job.purgedAt }
  if (job.state === 'succeeded') return { kind: 'succeeded', result: await repo.result(id) }
  if (job.state === 'failed' || job.state === 'cancelled') return { kind: job.state, refuse: job.refuse! }
  return { kind: 'pending', state: job.state }
}

/** The job's end as a waiting request gets it: at once when final, else when it settles. */
function settledOf(repo: JobRepository, runner: LocalRunner, id: string): Promise<SettledJob> {
  const { waiters } = runner
  return new Promise<SettledJob>((resolve, reject) => {
    // Wait first, then read: a job that ends while the row is read still reaches this request.
    const list = waiters.get(id) ?? []
    list.push(resolve)
    waiters.set(id, list)
    const stopWaiting = () => {
      const left = (waiters.get(id) ?? []).filter((waiter) => waiter !== resolve)
      if (left.length) waiters.set(id, left)
      else waiters.delete(id)
    }
    const fromRow = async (): Promise<void> => {
      const job = await repo.get(id)
      if (!job) {
        stopWaiting()
        return reject(new Refusal('not_found', `no job ${id}`))
      }
      if (!isFinal(job.state)) return
      stopWaiting()
      resolve(job.state === 'succeeded'
        ? { job, ok: true, result: await repo.result(id) }
        : { job, ok: false, error: refusalFrom(job.refuse!) })
    }
    fromRow().catch((err: unknown) => {
      stopWaiting()
      reject(err)
    })
  })
}

/** Shutting down: every request waiting on a job is answered `occupied` (the job runs after the restart). */
async function failWaiters(repo: JobRepository, { waiters }: LocalRunner): Promise<void> {
  const shutdown = new Refusal('occupied', 'the host is shutting down; the job will run after the restart', { retryAfterS: 5 })
  const waiting = [...waiters]
  waiters.clear()
  for (const [id, list] of waiting) {
    const job = await repo.get(id)
    for (const resolve of list) if (job) resolve({ job, ok: false, error: shutdown })
  }
}

/** Jobs of an earlier process: queued ones run; running ones were interrupted and get one more run. */
async function recoverEarlierJobs(repo: JobRepository, runner: LocalRunner): Promise<void> {
  const { waiting } = runner
  for (const job of await repo.inState('running')) {
    if (job.attempts >= 2) {
      const refuse: RefusalBody = {
        code: 'internal', reason: 'interrupted by a restart (twice): the job is not run a third time', op: job.op, http_status: 500,
      }
      await runner.finish(job, 'failed', { refuse })
    } else if (await repo.requeue(job.id)) {
      waiting.push(job.id)
    }
  }
  for (const job of await repo.inState('queued')) if (!waiting.includes(job.id)) waiting.push(job.id)
}

/** The job an Idempotency-Key already names, or null; the same key with another op or input is refused. */
async function sameKeyJob(repo: JobRepository, request: SubmitRequest, key: string, inputDigest: string): Promise<JobRecord | null> {
  const existing = await repo.byKey(request.surface, key)
  if (!existing) return null
  if (existing.inputDigest !== inputDigest) {
    throw new Refusal('conflict', `Idempotency-Key ${JSON.stringify(key)} was used for job ${existing.id} with another operation or input`, {
      op: request.op,
      hints: { job: existing.id },
    })
  }
  return existing
}

async function queueStats(repo: JobRepository, runner: LocalRunner, now: number): Promise<JobStats> {
  const byState = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>
  for (const row of await repo.countByState()) byState[row.state] = row.count
  const finished = await repo.finishedSince(now - 15 * 60_000)
  return {
    by_state: byState,
    queue_depth: runner.waiting.length,
    running: runner.active.size,
    throughput_per_min: finished / 15,
    finished_last_15_min: finished,
    durations_ms: runner.durations.snapshot(),
  }
}
