// The in-process job queue: rows in SQLite, runners in this process, events on an in-process channel. The mill stays
// the executor; this module owns the state machine queued → running → succeeded | failed | cancelled.
import { createHash, randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import { pagedList, type Page } from '../paging.js'
import { Refusal, type RefusalBody } from '../refusal.js'
import type { Store } from '../store/index.js'
import type { ProgressSnapshot } from '../mill/progress.js'
import { CANCEL_GRACE_MS, TaskCancelled, taskScope } from '../mill/scope.js'
import { createLocalChannel, type JobChannel } from './channel.js'
import { stringifyDeep } from './json.js'
import { createJobRepository, QUEUED_PROGRESS } from './repository.js'
import {
  isFinal, JOB_STATES, type JobEvent, type JobExecutor, type JobListQuery, type JobOutcome, type JobProgress, type JobQueue,
  type JobRecord, type JobState, type JobStats, type SettledJob, type SubmitAnswer, type SubmitRequest,
} from './types.js'

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

/** Upper bounds (ms) of the job-duration histogram. */
export const DURATION_BUCKETS_MS = [100, 500, 1000, 5000, 15_000, 60_000, 300_000, 1_800_000]
const PURGE_EVERY_MS = 60_000

interface Active {
  controller: AbortController
  progress: JobProgress
  /** Wall-clock start of this run (progress ETA), independent of the injected clock. */
  startedWall: number
  timedOut: boolean
  done: Promise<void>
}

export type LocalJobQueue = JobQueue & { readonly channel: JobChannel }

export function createLocalJobQueue(opts: LocalQueueOptions): LocalJobQueue {
  const { store, clock, concurrency, maxQueued, retentionMs, maxRunMs, log } = opts
  const repo = createJobRepository(store.db)
  const channel = opts.channel ?? createLocalChannel()
  const executors = new Map<string, JobExecutor>()
  const waiting: string[] = []
  const active = new Map<string, Active>()
  const seqs = new Map<string, number>()
  /** What a waiting request gets: the executor's own value or error (kept only until the job is final and read). */
  const waiters = new Map<string, Array<(settled: SettledJob) => void>>()
  const list = pagedList<{ n: number; job: JobRecord }>('jobs', ['integer'], (row) => [row.n])
  const durations = { count: 0, sum: 0, buckets: DURATION_BUCKETS_MS.map((le) => ({ le, count: 0 })) }
  let recentMs: number[] = []
  let started = false
  let closing = false
  let lastPurge = Number.NEGATIVE_INFINITY
  let purgeTimer: NodeJS.Timeout | undefined

  const withLive = (job: JobRecord): JobRecord => {
    const live = active.get(job.id)
    return live && job.state === 'running' ? { ...job, progress: live.progress } : job
  }

  function publish(type: JobEvent['type'], job: JobRecord, result?: unknown): void {
    const seq = (seqs.get(job.id) ?? 0) + 1
    seqs.set(job.id, seq)
    // Events carry no input: they go to every watcher, and an input may be megabytes of DIMACS.
    const event: JobEvent = { seq, type, job: { ...job, input: null } }
    if (result !== undefined) event.result = result
    channel.publish(event)
    if (isFinal(job.state)) seqs.delete(job.id)
  }

  function settle(id: string, settled: SettledJob): void {
    const list = waiters.get(id)
    waiters.delete(id)
    for (const resolve of list ?? []) resolve(settled)
  }

  function finalProgress(progress: JobProgress, state: JobState): JobProgress {
    return { ...progress, phase: state, eta_s: null }
  }

  /** Writes a final state once; publishes it and hands the outcome to waiting requests. */
  function finish(job: JobRecord, state: 'succeeded' | 'failed' | 'cancelled', outcome: { result?: unknown; error?: unknown; refuse?: RefusalBody }): void {
    const now = clock.now()
    const progress = finalProgress(active.get(job.id)?.progress ?? job.progress, state)
    if (!repo.finish(job.id, state, { result: outcome.result, refuse: outcome.refuse ?? null, progress, now })) return
    const final = repo.get(job.id)!
    if (final.startedAt !== null) recordDuration(now - final.startedAt)
    publish(state, final, state === 'succeeded' ? outcome.result : undefined)
    settle(job.id, state === 'succeeded' ? { job: final, ok: true, result: outcome.result } : { job: final, ok: false, error: outcome.error ?? refusalFrom(outcome.refuse!) })
  }

  function recordDuration(ms: number): void {
    durations.count++
    durations.sum += ms
    for (const bucket of durations.buckets) if (ms <= bucket.le) bucket.count++
    recentMs = [...recentMs.slice(-19), ms]
  }

  function pump(): void {
    while (!closing && started && active.size < concurrency && waiting.length) void runJob(waiting.shift()!)
  }

  async function runJob(id: string): Promise<void> {
    const job = repo.get(id)
    if (!job || job.state !== 'queued' || !repo.start(id, clock.now())) return
    const running = repo.get(id)!
    const controller = new AbortController()
    let release!: () => void
    const entry: Active = {
      controller,
      progress: { ...QUEUED_PROGRESS, phase: 'starting' },
      startedWall: Date.now(),
      timedOut: false,
      done: new Promise<void>((resolve) => (release = resolve)),
    }
    active.set(id, entry)
    publish('running', withLive(running))
    const budget = setTimeout(() => {
      entry.timedOut = true
      controller.abort()
    }, maxRunMs)
    try {
      const executor = executors.get(job.op)
      if (!executor) throw new Refusal('internal', `no executor is defined for ${job.op} in this process`, { op: job.op })
      const onProgress = (snapshot: ProgressSnapshot) => {
        entry.progress = progressOf(snapshot, entry.startedWall)
        publish('progress', withLive(running))
      }
      const result = await taskScope.run({ signal: controller.signal, onProgress, maxMs: maxRunMs }, () =>
        executor(job.input, { jobId: id, signal: controller.signal, maxMs: maxRunMs }))
      if (closing) return
      if (controller.signal.aborted) throw new TaskCancelled(false)
      finish(running, 'succeeded', { result })
    } catch (err) {
      // Shutting down: the row stays `running` and the next start re-runs it (one of its two chances).
      if (closing) return
      if (entry.timedOut) {
        const refusal = new Refusal('timeout', `the job ran past JOB_MAX_MS (${maxRunMs} ms) and was stopped`, { op: job.op })
        finish(running, 'failed', { error: refusal, refuse: refusal.toBody() })
      } else if (controller.signal.aborted || err instanceof TaskCancelled) {
        finish(running, 'cancelled', { refuse: cancelledRefusal(job.op, err instanceof TaskCancelled && err.terminated) })
      } else if (err instanceof Refusal) {
        finish(running, 'failed', { error: err, refuse: err.forOp(job.op).toBody() })
      } else {
        log?.error({ err, job: id, op: job.op }, 'job failed')
        const refuse: RefusalBody = { code: 'internal', reason: `job ${id} failed on an internal error (logged with the job id)`, op: job.op, http_status: 500 }
        finish(running, 'failed', { error: err, refuse })
      }
    } finally {
      clearTimeout(budget)
      active.delete(id)
      release()
      pump()
    }
  }

  function maybePurge(): void {
    const now = clock.now()
    if (now - lastPurge < 1000) return
    lastPurge = now
    repo.purge(now, retentionMs)
  }

  function retryAfterS(): number {
    const typical = recentMs.length ? recentMs.reduce((a, b) => a + b, 0) / recentMs.length : 1000
    return Math.max(1, Math.ceil((typical * (waiting.length + 1)) / Math.max(1, concurrency) / 1000))
  }

  const queue: LocalJobQueue = {
    channel,

    define(op, executor) {
      executors.set(op, executor)
    },

    async start() {
      if (started) return
      started = true
      // Jobs of an earlier process: queued ones run; running ones were interrupted and get one more run.
      for (const job of repo.inState('running')) {
        if (job.attempts >= 2) {
          const refuse: RefusalBody = {
            code: 'internal', reason: 'interrupted by a restart (twice): the job is not run a third time', op: job.op, http_status: 500,
          }
          finish(job, 'failed', { refuse })
        } else if (repo.requeue(job.id)) {
          waiting.push(job.id)
        }
      }
      for (const job of repo.inState('queued')) if (!waiting.includes(job.id)) waiting.push(job.id)
      maybePurge()
      purgeTimer = setInterval(() => {
        try {
          maybePurge()
        } catch (err) {
          log?.warn({ err }, 'job purge failed')
        }
      }, PURGE_EVERY_MS)
      purgeTimer.unref()
      pump()
    },

    async submit(request: SubmitRequest): Promise<SubmitAnswer> {
      if (closing) throw new Refusal('occupied', 'the host is shutting down', { op: request.op, retryAfterS: 5 })
      if (!executors.has(request.op)) throw new Refusal('not_found', `${request.op} does not run as a job`, { op: request.op })
      const inputDigest = createHash('sha256').update(request.op).update('\0').update(stringifyDeep(request.input ?? null)).digest('hex')
      const key = request.idempotencyKey ?? null
      if (key !== null) {
        const existing = repo.byKey(request.surface, key)
        if (existing) {
          if (existing.inputDigest !== inputDigest) {
            throw new Refusal('conflict', `Idempotency-Key ${JSON.stringify(key)} was used for job ${existing.id} with another operation or input`, {
              op: request.op,
              hints: { job: existing.id },
            })
          }
          return { job: withLive(existing), created: false }
        }
      }
      if (waiting.length >= maxQueued && active.size >= concurrency) {
        throw new Refusal('occupied', `the job queue is full (${maxQueued} waiting jobs)`, { op: request.op, retryAfterS: retryAfterS() })
      }
      const id = randomUUID()
      repo.insert({ id, op: request.op, surface: request.surface, input: request.input, inputDigest, idempotencyKey: key, createdAt: clock.now() })
      const job = repo.get(id)!
      waiting.push(id)
      publish('queued', job)
      pump()
      return { job: withLive(repo.get(id)!), created: true }
    },

    async get(id) {
      maybePurge()
      const job = repo.get(id)
      return job ? withLive(job) : null
    },

    async list(query: JobListQuery): Promise<Page<JobRecord>> {
      maybePurge()
      const page = list.read(query, (request) => repo.page({ state: query.state, op: query.op }, request.after, request.limit))
      return { ...page, rows: page.rows.map((row) => withLive(row.job)) }
    },

    async cancel(id) {
      const job = repo.get(id)
      if (!job || isFinal(job.state)) return job
      const live = active.get(id)
      if (job.state === 'queued' || !live) {
        const at = waiting.indexOf(id)
        if (at >= 0) waiting.splice(at, 1)
        finish(job, 'cancelled', { refuse: cancelledRefusal(job.op, false) })
      } else {
        live.controller.abort()
        // The mill raises the task's flag and terminates its worker after CANCEL_GRACE_MS: wait a little beyond.
        await Promise.race([live.done, new Promise((resolve) => setTimeout(resolve, CANCEL_GRACE_MS + 150))])
      }
      return withLive(repo.get(id)!)
    },

    async outcome(id): Promise<JobOutcome> {
      maybePurge()
      const job = repo.get(id)
      if (!job) return { kind: 'unknown' }
      if (job.purgedAt !== null) return { kind: 'purged', finishedAt: job.finishedAt!, purgedAt: job.purgedAt }
      if (job.state === 'succeeded') return { kind: 'succeeded', result: repo.result(id) }
      if (job.state === 'failed' || job.state === 'cancelled') return { kind: job.state, refuse: job.refuse! }
      return { kind: 'pending', state: job.state }
    },

    settled(id) {
      return new Promise<SettledJob>((resolve, reject) => {
        const job = repo.get(id)
        if (!job) return reject(new Refusal('not_found', `no job ${id}`))
        if (isFinal(job.state)) {
          return resolve(job.state === 'succeeded'
            ? { job, ok: true, result: repo.result(id) }
            : { job, ok: false, error: refusalFrom(job.refuse!) })
        }
        const list = waiters.get(id) ?? []
        list.push(resolve)
        waiters.set(id, list)
      })
    },

    subscribe: (id, listener) => channel.subscribe(id, listener),
    subscribeAll: (listener) => channel.subscribe('*', listener),

    async purgeExpired() {
      lastPurge = clock.now()
      return repo.purge(lastPurge, retentionMs)
    },

    async stats(): Promise<JobStats> {
      const byState = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>
      for (const row of repo.countByState()) byState[row.state] = row.count
      const finished = repo.finishedSince(clock.now() - 15 * 60_000)
      return {
        by_state: byState,
        queue_depth: waiting.length,
        running: active.size,
        throughput_per_min: finished / 15,
        finished_last_15_min: finished,
        durations_ms: { count: durations.count, sum: durations.sum, buckets: durations.buckets.map((b) => ({ ...b })) },
      }
    },

    async close() {
      closing = true
      clearInterval(purgeTimer)
      for (const live of active.values()) live.controller.abort()
      const shutdown = new Refusal('occupied', 'the host is shutting down; the job will run after the restart', { retryAfterS: 5 })
      for (const [id, list] of waiters) {
        const job = repo.get(id)
        for (const resolve of list) if (job) resolve({ job, ok: false, error: shutdown })
      }
      waiters.clear()
    },
  }
  return queue
}

/** The refusal a cancelled job answers with (its result endpoint and its final event). */
function cancelledRefusal(op: string, terminated: boolean): RefusalBody {
  return {
    code: 'conflict',
    reason: terminated ? 'the job was cancelled; its worker did not stop in time and was replaced' : 'the job was cancelled',
    op,
    http_status: 409,
  }
}

/** Rebuilds the thrown form of a stored refusal (same body: the sync answer does not change). */
export function refusalFrom(body: RefusalBody): Refusal {
  return new Refusal(body.code, body.reason, {
    ...(body.op !== undefined ? { op: body.op } : {}),
    ...(body.retry_after_s !== undefined ? { retryAfterS: body.retry_after_s } : {}),
    ...(body.issues !== undefined ? { issues: body.issues } : {}),
    ...(body.hints !== undefined ? { hints: body.hints } : {}),
  })
}

export function progressOf(snapshot: ProgressSnapshot, startedWall: number): JobProgress {
  const { done, total } = snapshot
  const fraction = done !== null && total !== null && total > 0 ? Math.min(1, Math.max(0, done / total)) : null
  const elapsedS = (Date.now() - startedWall) / 1000
  const eta = fraction !== null && fraction > 0 && fraction < 1 ? Math.round((elapsedS * (1 - fraction)) / fraction * 10) / 10 : null
  return { fraction, phase: snapshot.phase, done, total, eta_s: eta, counters: snapshot.counters as Record<string, number> }
}
