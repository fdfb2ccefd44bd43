// The running half of the queue in this process: the waiting line, runs under a time budget, final states written
// once, events published in order and the outcome handed to requests waiting on it. The BullMQ backend runs the jobs
// BullMQ hands this replica through the same runJob (its waiting line stays empty).
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import { Refusal, type RefusalBody } from '../refusal.js'
import type { ProgressSnapshot } from '../mill/progress.js'
import { TaskCancelled, taskScope } from '../mill/scope.js'
import type { JobChannel } from './channel.js'
import { createDurationHistogram } from './durations.js'
import { cancelledRefusal, progressOf, refusalFrom } from './outcomes.js'
import { QUEUED_PROGRESS, type JobRepository } from './repository.js'
import { isFinal, type JobEvent, type JobExecutor, type JobProgress, type JobRecord, type SettledJob } from './types.js'

export interface LocalRunnerOptions {
  repo: JobRepository
  channel: JobChannel
  clock: Clock
  concurrency: number
  maxRunMs: number
  log?: FastifyBaseLogger
}

export interface ActiveRun {
  controller: AbortController
  progress: JobProgress
  /** Wall-clock start of this run (progress ETA), independent of the injected clock. */
  startedWall: number
  timedOut: boolean
  done: Promise<void>
}

type FinalState = 'succeeded' | 'failed' | 'cancelled'
interface FinalOutcome { result?: unknown; error?: unknown; refuse?: RefusalBody }

export type LocalRunner = ReturnType<typeof createLocalRunner>

export function createLocalRunner(opts: LocalRunnerOptions) {
  const { repo, channel, clock, concurrency, maxRunMs, log } = opts
  const executors = new Map<string, JobExecutor>()
  const waiting: string[] = []
  const active = new Map<string, ActiveRun>()
  const seqs = new Map<string, number>()
  /** What a waiting request gets: the executor's own value or error (kept only until the job is final and read). */
  const waiters = new Map<string, Array<(settled: SettledJob) => void>>()
  /**
   * Inputs of jobs submitted in this process, by job id, until their run starts or they end: the run takes the value
   * it was submitted with instead of reading back and parsing its stored text (megabytes, maybe).
   */
  const inputs = new Map<string, unknown>()
  const durations = createDurationHistogram()
  const flags = { started: false, closing: false }

  const withLive = (job: JobRecord): JobRecord => {
    const live = active.get(job.id)
    return live && job.state === 'running' ? { ...job, progress: live.progress } : job
  }

  function publish(type: JobEvent['type'], job: JobRecord, result?: unknown): void {
    const seq = (seqs.get(job.id) ?? 0) + 1
    seqs.set(job.id, seq)
    // Records carry no input (repository.ts): events go to every watcher, and an input may be megabytes of DIMACS.
    const event: JobEvent = { seq, type, job }
    if (result !== undefined) event.result = result
    channel.publish(event)
    if (isFinal(job.state)) seqs.delete(job.id)
  }

  function settle(id: string, settled: SettledJob): void {
    const list = waiters.get(id)
    waiters.delete(id)
    for (const resolve of list ?? []) resolve(settled)
  }

  /** Writes a final state once; publishes it and hands the outcome to waiting requests. */
  async function finish(job: JobRecord, state: FinalState, outcome: FinalOutcome): Promise<void> {
    const now = clock.now()
    const progress: JobProgress = { ...(active.get(job.id)?.progress ?? job.progress), phase: state, eta_s: null }
    const final = await repo.finish(job.id, state, { result: outcome.result, refuse: outcome.refuse ?? null, progress, now })
    if (!final) return
    inputs.delete(job.id)
    if (final.startedAt !== null) durations.record(now - final.startedAt)
    publish(state, final, state === 'succeeded' ? outcome.result : undefined)
    settle(job.id, state === 'succeeded' ? { job: final, ok: true, result: outcome.result } : { job: final, ok: false, error: outcome.error ?? refusalFrom(outcome.refuse!) })
  }

  function pump(): void {
    // beginRun takes the slot before the first await, so this loop never starts more than `concurrency` runs.
    while (!flags.closing && flags.started && active.size < concurrency && waiting.length) void runJob(waiting.shift()!)
  }

  function beginRun(id: string): { entry: ActiveRun; release: () => void } {
    let release!: () => void
    const entry: ActiveRun = {
      controller: new AbortController(),
      progress: { ...QUEUED_PROGRESS, phase: 'starting' },
      startedWall: Date.now(),
      timedOut: false,
      done: new Promise<void>((resolve) => (release = resolve)),
    }
    active.set(id, entry)
    return { entry, release }
  }

  async function runJob(id: string): Promise<void> {
    const { entry, release } = beginRun(id)
    let running: JobRecord | null = null
    try {
      const inHand = inputs.has(id)
      const handed = inputs.get(id)
      inputs.delete(id)
      running = await repo.start(id, clock.now())
      if (running) await run(running, inHand ? handed : await repo.input(id), entry)
    } catch (err) {
      // The store failed (a run's own errors end in finish): the row stays as it was and a restart picks it up;
      // requests waiting on the job get the error rather than waiting for that.
      log?.error({ err, job: id }, 'job state could not be written')
      if (running) settle(id, { job: running, ok: false, error: err })
    } finally {
      active.delete(id)
      release()
      pump()
    }
  }

  /** Runs a started job under its budget and records how it ended (not when the host is shutting down). */
  async function run(running: JobRecord, input: unknown, entry: ActiveRun): Promise<void> {
    const { controller } = entry
    publish('running', withLive(running))
    const budget = setTimeout(() => {
      entry.timedOut = true
      controller.abort()
    }, maxRunMs)
    let ending: [FinalState, FinalOutcome]
    try {
      const executor = executors.get(running.op)
      if (!executor) throw new Refusal('internal', `no executor is defined for ${running.op} in this process`, { op: running.op })
      const onProgress = (snapshot: ProgressSnapshot) => {
        entry.progress = progressOf(snapshot, entry.startedWall)
        publish('progress', withLive(running))
      }
      const result = await taskScope.run({ signal: controller.signal, onProgress, maxMs: maxRunMs }, () =>
        executor(input, { jobId: running.id, signal: controller.signal, maxMs: maxRunMs }))
      if (controller.signal.aborted) throw new TaskCancelled(false)
      ending = ['succeeded', { result }]
    } catch (err) {
      if (flags.closing) return
      ending = failureOf(err, running, entry, maxRunMs, log)
    } finally {
      clearTimeout(budget)
    }
    // Shutting down: the row stays `running` and the next start re-runs it (one of its two chances).
    if (flags.closing) return
    await finish(running, ...ending)
  }

  // runJob is also how a distributed backend runs a job it was handed (its own dispatch instead of the waiting line).
  return { executors, waiting, active, waiters, inputs, durations, flags, withLive, publish, finish, pump, runJob }
}

/** How a run that threw ends: timed out, cancelled, refused, or failed on an internal error (logged). */
function failureOf(err: unknown, job: JobRecord, entry: ActiveRun, maxRunMs: number, log?: FastifyBaseLogger): [FinalState, FinalOutcome] {
  if (entry.timedOut) {
    const refusal = new Refusal('timeout', `the job ran past JOB_MAX_MS (${maxRunMs} ms) and was stopped`, { op: job.op })
    return ['failed', { error: refusal, refuse: refusal.toBody() }]
  }
  if (entry.controller.signal.aborted || err instanceof TaskCancelled) {
    return ['cancelled', { refuse: cancelledRefusal(job.op, err instanceof TaskCancelled && err.terminated) }]
  }
  if (err instanceof Refusal) return ['failed', { error: err, refuse: err.forOp(job.op).toBody() }]
  log?.error({ err, job: job.id, op: job.op }, 'job failed')
  const refuse: RefusalBody = { code: 'internal', reason: `job ${job.id} failed on an internal error (logged with the job id)`, op: job.op, http_status: 500 }
  return ['failed', { error: err, refuse }]
}
