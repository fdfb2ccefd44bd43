// The job queue across replicas (REDIS_URL): job records stay rows in the database (the same repository as the
// in-process queue); BullMQ only dispatches — any replica's worker takes a job submitted on any replica — and Redis
// pub/sub carries events (progress, final) and cancellations between replicas. A replica that dies mid-run loses its
// BullMQ lock; another replica's stalled check hands the job on, and the rows decide what a re-run may do (executors
// are pure functions of their stored input; every state change is one conditional UPDATE).
import { Queue, WaitingError, Worker, type Job } from 'bullmq'
import { CANCEL_GRACE_MS } from '../mill/scope.js'
import { pagedList, type Page } from '../http/paging.js'
import { createRedisBus } from '../redis/bus.js'
import { openRedis, type RedisClient } from '../redis/connection.js'
import { Refusal } from '../http/refusal.js'
import { createSharedChannel } from './channel.js'
import type { LocalQueueOptions } from './local-queue.js'
import { createLocalRunner } from './local-runner.js'
import { cancelledRefusal } from './outcomes.js'
import { createPurger, failWaiters, interruptedTwice, outcomeOf, settledFromRow, storedStats, storeSubmission } from './queue-core.js'
import { createJobRepository } from './repository.js'
import { retryTransient } from '../store/faults.js'
import { isFinal, type JobListQuery, type JobProgress, type JobQueue, type JobRecord, type SettledJob, type DefineOptions } from './types.js'

/** The in-process queue's options (concurrency: this replica's runs; maxQueued: the shared queue's bound) and Redis. */
export interface BullQueueOptions extends Omit<LocalQueueOptions, 'channel'> {
  redisUrl: string
  /** REDIS_PREFIX: the queue's keys, the event and cancel channels all start with it. */
  prefix: string
  /** The host's fail-fast connection (src/plugins/redis.ts): publishes. */
  commands: RedisClient
}

/**
 * A run's lock lives LOCK_MS and is renewed about every LOCK_RENEW_MS by the replica running it; every replica checks
 * for expired locks every STALLED_CHECK_MS. So a job whose replica died runs elsewhere within LOCK_MS +
 * STALLED_CHECK_MS (8 s), while a live replica loses its lock only if it renews nothing for about 5 s (runs are in mill
 * threads; the host sheds load long before its event loop lags that much). Renewing more often than BullMQ's default
 * (half the lock) is what lets the lock be this short: on a loaded 2-core machine a 4 s lock renewed every 2 s lapsed.
 */
export const LOCK_MS = 6000
const LOCK_RENEW_MS = 1000
export const STALLED_CHECK_MS = 2000
/** BullMQ never fails a stalled job itself: the row's attempts decide (a job interrupted twice ends failed). */
const MAX_STALLED = 1000
/** Longest a submission waits for Redis to take a job (past it the row stays queued and the upkeep dispatches it). */
const DISPATCH_WAIT_MS = 1000
/** A request waiting on a job re-reads its row this often, should an event be lost while Redis reconnects. */
const SETTLED_POLL_MS = 2000
/** A job handed back after transient store faults, or not taken by Redis in time, is dispatched again this long after. */
const HAND_BACK_DELAY_MS = 2000
/** Progress of jobs running elsewhere, kept for reads on this replica (entries leave at the final event). */
const MAX_PROGRESS_ELSEWHERE = 10_000

/** Longest a closing replica waits on BullMQ (its runs handing back, its connections quitting) before it drops them. */
const CLOSE_WAIT_MS = 3000

const QUEUE_NAME = 'jobs'

export function createBullJobQueue(opts: BullQueueOptions): JobQueue {
  const { clock, concurrency, maxQueued, retentionMs, maxRunMs, prefix, log } = opts
  const repo = createJobRepository(opts.store.sql)
  const bus = createRedisBus(opts.redisUrl, opts.commands, (err, what) => log?.warn({ err }, `job events: ${what} failed`))
  const channel = createSharedChannel(bus, `${prefix}jobs:events`)
  const cancelChannel = `${prefix}jobs:cancel`
  // A job handed back after transient store faults is dispatched again after a pause (or by the next upkeep).
  const runner = createLocalRunner({
    repo, channel, clock, concurrency, maxRunMs, log,
    handBack: (id) => redispatchLater(id),
  })
  /** Dispatches a queued job again a little later (a no-op once it is running or final). */
  function redispatchLater(id: string): void {
    setTimeout(() => {
      if (flags.closing) return
      void repo.get(id).then((row) => row && row.state === 'queued' && dispatch(row)).catch(() => undefined)
    }, HAND_BACK_DELAY_MS).unref()
  }
  const { executors, active, flags } = runner
  /** How ops' identical submissions share one job (DefineOptions). */
  const sharedOps = new Map<string, DefineOptions>()
  const purger = createPurger(repo, clock, retentionMs, log, opts.maxJobs)
  const list = pagedList<{ n: number; job: JobRecord }>('jobs', ['integer'], (row) => [row.n])
  // Queue and worker share one connection; BullMQ opens the worker's blocking reader itself.
  const connection = openRedis(opts.redisUrl, 'queue')
  const bullmq = { connection, prefix: `${prefix}bull` }
  const queue = new Queue<{ id: string }>(QUEUE_NAME, { ...bullmq, defaultJobOptions: { removeOnComplete: true, removeOnFail: true } })
  queue.on('error', (err) => log?.warn({ err }, 'job queue: Redis error'))
  let worker: Worker<{ id: string }> | null = null

  const progressElsewhere = new Map<string, JobProgress>()
  channel.subscribe('*', (event) => {
    const { id, state } = event.job
    if (isFinal(state)) {
      progressElsewhere.delete(id)
      runner.inputs.take(id)
    } else if (state === 'running' && !active.has(id)) {
      progressElsewhere.delete(id)
      progressElsewhere.set(id, event.job.progress)
      if (progressElsewhere.size > MAX_PROGRESS_ELSEWHERE) progressElsewhere.delete(progressElsewhere.keys().next().value!)
    }
  })
  bus.subscribe(cancelChannel, (message) => active.get((message as { id: string }).id)?.controller.abort())

  /** The row with the progress of its run: this replica's own, or the last one another replica published. */
  const live = (job: JobRecord): JobRecord => {
    if (active.has(job.id) || job.state !== 'running') return runner.withLive(job)
    const progress = progressElsewhere.get(job.id)
    return progress ? { ...job, progress } : job
  }

  /** Hands a stored job to BullMQ (its id is the BullMQ job id, so a second dispatch of a waiting or active job is a no-op). */
  async function dispatch(job: JobRecord): Promise<boolean> {
    return within(queue.add(job.op, { id: job.id }, { jobId: job.id }).then(() => true), DISPATCH_WAIT_MS, false)
      .catch((err: unknown) => {
        log?.warn({ err, job: job.id }, 'job not dispatched (Redis): it stays queued until the next upkeep')
        return false
      })
  }

  /** Rows not final whose BullMQ job is gone (Redis lost it, a dispatch timed out, a switch from the local backend). */
  async function dispatchStored(): Promise<void> {
    const rows = [...await repo.inState('queued'), ...await repo.inState('running')]
    await Promise.all(rows.map(dispatch))
  }

  async function processJob(bullJob: Job<{ id: string }>, token?: string): Promise<void> {
    const { id } = bullJob.data
    // A store fault here must not lose the job: BullMQ drops a job whose processing throws (removeOnFail), while its
    // row stays queued; it is dispatched again shortly instead.
    const job = await retryTransient(() => repo.get(id)).catch((err: unknown) => {
      log?.warn({ err, job: id }, 'job row unread (store fault): dispatched again shortly')
      redispatchLater(id)
      return undefined
    })
    if (job === undefined) return
    // Final (cancelled before it ran, or ended elsewhere), or still running here: this replica's lock lapsed while its
    // event loop was held up, and the stalled check handed the job back to it.
    if (!job || isFinal(job.state) || active.has(id)) return
    if (job.state === 'running') {
      // Its run stopped with its replica (died, or shut down): this is the re-run, unless it was the second.
      if (job.attempts >= 2) return void await runner.finish(job, 'failed', { refuse: interruptedTwice(job.op) })
      if (!(await retryTransient(() => repo.requeue(id)))) return
    }
    await runner.runJob(id)
    if (flags.abandoned && (await repo.get(id))?.state === 'running') {
      // This replica is shutting down mid-run: back to waiting at once, so another replica runs it now.
      await bullJob.moveToWait(token)
      throw new WaitingError()
    }
  }

  function settledOf(id: string): Promise<SettledJob> {
    return new Promise<SettledJob>((resolve, reject) => {
      let settled = false
      const end = (fn: () => void) => {
        if (settled) return
        settled = true
        const left = (runner.waiters.get(id) ?? []).filter((waiter) => waiter !== fromHere)
        if (left.length) runner.waiters.set(id, left)
        else runner.waiters.delete(id)
        unsubscribe()
        clearInterval(poll)
        fn()
      }
      // Run here: the executor's own value or error, as the in-process queue hands it over.
      const fromHere = (outcome: SettledJob) => end(() => resolve(outcome))
      runner.waiters.set(id, [...(runner.waiters.get(id) ?? []), fromHere])
      // Run elsewhere: its final event says when; the row has the answer.
      const fromRow = async () => {
        const job = await repo.get(id)
        if (!job) return end(() => reject(new Refusal('not_found', `no job ${id}`)))
        if (!isFinal(job.state)) return
        const outcome = await settledFromRow(repo, job)
        end(() => resolve(outcome))
      }
      const check = () => { fromRow().catch((err: unknown) => end(() => reject(err))) }
      const unsubscribe = channel.subscribe(id, (event) => { if (isFinal(event.job.state)) check() })
      const poll = setInterval(check, SETTLED_POLL_MS)
      check()
    })
  }

  return {
    backend: 'bullmq',

    define(op, executor, options) {
      runner.defineExecutor(op, executor, options)
      if (options?.shared) sharedOps.set(op, options)
    },

    async start() {
      if (flags.started) return
      flags.started = true
      await purger.maybePurge()
      purger.start(dispatchStored)
      void dispatchStored().catch((err: unknown) => log?.warn({ err }, 'stored jobs not dispatched'))
      worker = new Worker<{ id: string }>(QUEUE_NAME, processJob, {
        ...bullmq, concurrency, lockDuration: LOCK_MS, lockRenewTime: LOCK_RENEW_MS, stalledInterval: STALLED_CHECK_MS,
        maxStalledCount: MAX_STALLED, autorun: false,
      })
      worker.on('error', (err) => log?.warn({ err }, 'job worker: Redis error'))
      void worker.run().catch((err: unknown) => log?.error({ err }, 'job worker stopped'))
    },

    async submit(request) {
      if (flags.closing) throw new Refusal('occupied', 'the host is shutting down', { op: request.op, retryAfterS: 5 })
      if (!executors.has(request.op)) throw new Refusal('not_found', `${request.op} does not run as a job`, { op: request.op })
      const { job, created, json } = await storeSubmission(repo, request, clock, { ...opts, shared: (op) => sharedOps.get(op) }, async () => {
        const waiting = await within(queue.getWaitingCount(), DISPATCH_WAIT_MS, 0).catch(() => 0)
        if (waiting >= maxQueued) {
          throw new Refusal('occupied', `the job queue is full (${maxQueued} waiting jobs)`, { op: request.op, retryAfterS: runner.durations.retryAfterS(waiting, concurrency) })
        }
      })
      if (!created) {
        // A replay of a job still waiting: its first submission may have died between its row and its dispatch (its
        // replica killed); dispatching again is a no-op when BullMQ has it already.
        if (job.state === 'queued') void dispatch(job)
        return { job: live(job), created }
      }
      // Kept for a run on this replica; dropped at the job's final event when another replica ran it.
      runner.keepInput(job.id, request.op, request.input, json)
      runner.publish('queued', job)
      // Not taken by Redis in time (a slow or reconnecting Redis): tried again shortly, not only at the minute's upkeep.
      if (!(await dispatch(job))) redispatchLater(job.id)
      return { job: live((await repo.get(job.id))!), created }
    },

    async get(id) {
      await purger.maybePurge()
      const job = await repo.get(id)
      return job ? live(job) : null
    },

    idsStartingWith: (prefix, limit, owner) => repo.idsStartingWith(prefix, limit, owner),

    async list(query: JobListQuery): Promise<Page<JobRecord>> {
      await purger.maybePurge()
      const page = await list.read(query, (request) => repo.page({ state: query.state, op: query.op }, request.after, request.limit))
      return { ...page, rows: page.rows.map((row) => live(row.job)) }
    },

    async cancel(id) {
      const job = await repo.get(id)
      if (!job || isFinal(job.state)) return job
      // The row decides first, on every replica alike (src/jobs/effects.ts): the cancel is written unless the job is
      // final or sealed (its run's effects are stored). A replica running it then stops; one that takes it later, or
      // whose run ends later, finds the row final and changes nothing: no run of a cancelled job is stored.
      if (await runner.finish(job, 'cancelled', { refuse: cancelledRefusal(job.op, false) })) {
        const here = active.get(id)
        if (here) here.controller.abort()
        else bus.publish(cancelChannel, { id })
        if (job.state === 'queued') await within(queue.remove(id), DISPATCH_WAIT_MS, 0).catch(() => 0)
        else if (here) await Promise.race([here.done, new Promise((resolve) => setTimeout(resolve, CANCEL_GRACE_MS + 150))])
      }
      return live((await repo.get(id))!)
    },

    async outcome(id) {
      await purger.maybePurge()
      return outcomeOf(repo, id)
    },

    settled: settledOf,
    subscribe: (id, listener) => channel.subscribe(id, listener),
    subscribeAll: (listener) => channel.subscribe('*', listener),
    purgeExpired: () => purger.purgeNow(),

    async stats() {
      return {
        ...(await storedStats(repo, clock.now())),
        queue_depth: await within(queue.getWaitingCount(), DISPATCH_WAIT_MS, 0).catch(() => 0),
        running: active.size,
        durations_ms: runner.durations.snapshot(),
      }
    },

    async close() {
      flags.closing = true
      purger.stop()
      // Nothing more is taken; runs in flight have the drain to finish, then are handed back (processJob) for another
      // replica. With Redis gone nothing would answer: the jobs' locks expire and another replica's stalled check
      // re-runs them.
      const reachable = connection.status === 'ready'
      if (worker && reachable) await within(worker.pause(true).then(() => true), CLOSE_WAIT_MS, false).catch(() => false)
      await runner.drain(opts.drainMs ?? 0)
      if (worker) await closeWithin(worker, reachable)
      await failWaiters(repo, runner.waiters, 'on another replica (read it by its id)')
      await closeWithin(queue, reachable)
      await bus.close()
      connection.disconnect()
    },
  }
}

/**
 * Closes a BullMQ part gracefully within CLOSE_WAIT_MS while Redis answers; else drops its connections, not waiting.
 * Either way the part is marked closing first (a worker's `close(true)` stops its fetch loop, lock renewals and
 * stalled checks before its first await): a bare `disconnect()` left those loops sending commands on a closed
 * connection after the host had gone.
 */
async function closeWithin(part: { close(force?: boolean): Promise<void>; disconnect(): Promise<void> }, reachable: boolean): Promise<void> {
  const closing = part.close(!reachable).then(() => true, () => false)
  const closed = reachable && (await within(closing, CLOSE_WAIT_MS, false))
  if (!closed) void part.disconnect().catch(() => undefined)
}

/** The promise's value, or fallback when it takes longer than ms (the promise itself goes on). */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<T>((resolve) => { timer = setTimeout(() => resolve(fallback), ms) })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}
