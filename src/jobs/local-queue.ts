// The in-process job queue: rows in SQLite, runners in this process, events on an in-process channel. The mill stays
// the executor; this module owns the state machine queued → running → succeeded | failed | cancelled (the runs
// themselves: local-runner.ts).
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../sched/clock.js'
import { pagedList, type Page } from '../http/paging.js'
import { Refusal } from '../http/refusal.js'
import type { Store } from '../store/index.js'
import { CANCEL_GRACE_MS } from '../mill/scope.js'
import { createLocalChannel, type JobChannel } from './channel.js'
import { createLocalRunner, type LocalRunner } from './local-runner.js'
import { cancelledRefusal } from './outcomes.js'
import { createPurger, failWaiters, interruptedTwice, outcomeOf, settledFromRow, storedStats, storeSubmission } from './queue-core.js'
import { createJobRepository, type JobRepository } from './repository.js'
import { isFinal, type JobListQuery, type JobOutcome, type JobQueue, type JobRecord, type JobStats, type SettledJob, type SubmitAnswer, type SubmitRequest, type DefineOptions } from './types.js'

export { DURATION_BUCKETS_MS } from './durations.js'
export { progressOf, refusalFrom } from './outcomes.js'

export interface LocalQueueOptions {
  store: Store
  clock: Clock
  /** Jobs running at once (the mill's threads: a running job is a busy worker). */
  concurrency: number
  /** Jobs that may wait; past it submissions are refused with `occupied` (the mill's queue bound). */
  maxQueued: number
  /** Unfinished jobs one owner may have (JOBS_PER_CLIENT): its share of the queue; unbounded when absent. */
  perOwner?: number
  /** Finished jobs kept (JOB_RETENTION_MAX_JOBS; 0: no count limit), beside the age limit. */
  maxJobs?: number
  retentionMs: number
  /** JOB_MAX_MS: a run is stopped past it and fails with `timeout`. */
  maxRunMs: number
  /** At shutdown, how long runs in flight may take to finish before they are given up (within SHUTDOWN_GRACE_MS). */
  drainMs?: number
  log?: FastifyBaseLogger
  channel?: JobChannel
}

export type LocalJobQueue = JobQueue & { readonly channel: JobChannel }

/** A job handed back after transient store faults waits this long before it is run again. */
const HAND_BACK_DELAY_MS = 2000

export function createLocalJobQueue(opts: LocalQueueOptions): LocalJobQueue {
  const { store, clock, concurrency, maxQueued, retentionMs, log } = opts
  const repo = createJobRepository(store.sql)
  const channel = opts.channel ?? createLocalChannel()
  const runner = createLocalRunner({
    repo, channel, clock, concurrency, maxRunMs: opts.maxRunMs, log,
    // Handed back after transient store faults: it waits its turn again after a pause.
    handBack: (id) => setTimeout(() => {
      if (flags.closing) return
      waiting.push(id)
      pump()
    }, HAND_BACK_DELAY_MS).unref(),
  })
  const { executors, waiting, active, waiters, flags, withLive, finish, pump } = runner
  /** How ops' identical submissions share one job (DefineOptions). */
  const sharedOps = new Map<string, DefineOptions>()
  const list = pagedList<{ n: number; job: JobRecord }>('jobs', ['integer'], (row) => [row.n])
  const purger = createPurger(repo, clock, retentionMs, log, opts.maxJobs)
  const { maybePurge } = purger

  const queue: LocalJobQueue = {
    backend: 'local',
    channel,

    define(op, executor, options) {
      runner.defineExecutor(op, executor, options)
      if (options?.shared) sharedOps.set(op, options)
    },

    async start() {
      if (flags.started) return
      flags.started = true
      await recoverEarlierJobs(repo, runner)
      await maybePurge()
      purger.start()
      pump()
    },

    async submit(request: SubmitRequest): Promise<SubmitAnswer> {
      if (flags.closing) throw new Refusal('occupied', 'the host is shutting down', { op: request.op, retryAfterS: 5 })
      if (!executors.has(request.op)) throw new Refusal('not_found', `${request.op} does not run as a job`, { op: request.op })
      const { job, created, json } = await storeSubmission(repo, request, clock, { ...opts, shared: (op) => sharedOps.get(op) }, () => {
        if (waiting.length >= maxQueued && active.size >= concurrency) {
          throw new Refusal('occupied', `the job queue is full (${maxQueued} waiting jobs)`, { op: request.op, retryAfterS: runner.durations.retryAfterS(waiting.length, concurrency) })
        }
      })
      if (!created) return { job: withLive(job), created }
      runner.keepInput(job.id, request.op, request.input, json)
      waiting.push(job.id)
      runner.publish('queued', job)
      pump()
      return { job: withLive((await repo.get(job.id))!), created }
    },

    async get(id) {
      await maybePurge()
      const job = await repo.get(id)
      return job ? withLive(job) : null
    },

    idsStartingWith: (prefix, limit, owner) => repo.idsStartingWith(prefix, limit, owner),

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

    purgeExpired: () => purger.purgeNow(),

    stats: async () => queueStats(repo, runner, clock.now()),

    async close() {
      flags.closing = true
      purger.stop()
      await runner.drain(opts.drainMs ?? 0)
      await failWaiters(repo, runner.waiters)
    },
  }
  return queue
}

/**
 * Cancels a job. The row decides first (src/jobs/effects.ts): the cancel is written unless the job is final or sealed
 * (its run's effects are stored: it ends with its answer). Then a running one is aborted and given the mill's grace
 * to stop; a run that took the job meanwhile finds it cancelled (its start, seal or finish changes nothing).
 */
async function cancelJob(repo: JobRepository, runner: LocalRunner, id: string): Promise<JobRecord | null> {
  const { waiting, active, finish, withLive } = runner
  const job = await repo.get(id)
  if (!job || isFinal(job.state)) return job
  if (await finish(job, 'cancelled', { refuse: cancelledRefusal(job.op, false) })) {
    const at = waiting.indexOf(id)
    if (at >= 0) waiting.splice(at, 1)
    const live = active.get(id)
    if (live) {
      live.controller.abort()
      // The mill raises the task's flag and terminates its worker after CANCEL_GRACE_MS: wait a little beyond.
      await Promise.race([live.done, new Promise((resolve) => setTimeout(resolve, CANCEL_GRACE_MS + 150))])
    }
  }
  return withLive((await repo.get(id))!)
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
      resolve(await settledFromRow(repo, job))
    }
    fromRow().catch((err: unknown) => {
      stopWaiting()
      reject(err)
    })
  })
}

/** Jobs of an earlier process: queued ones run; running ones were interrupted and get one more run. */
async function recoverEarlierJobs(repo: JobRepository, runner: LocalRunner): Promise<void> {
  const { waiting } = runner
  for (const job of await repo.inState('running')) {
    if (job.attempts >= 2) {
      await runner.finish(job, 'failed', { refuse: interruptedTwice(job.op) })
    } else if (await repo.requeue(job.id)) {
      waiting.push(job.id)
    }
  }
  for (const job of await repo.inState('queued')) if (!waiting.includes(job.id)) waiting.push(job.id)
}

async function queueStats(repo: JobRepository, runner: LocalRunner, now: number): Promise<JobStats> {
  return {
    ...(await storedStats(repo, now)),
    queue_depth: runner.waiting.length,
    running: runner.active.size,
    durations_ms: runner.durations.snapshot(),
  }
}
