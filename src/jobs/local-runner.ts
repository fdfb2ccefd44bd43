// The running half of the queue in this process: the waiting line, runs under a time budget, final states written
// once, events published in order and the outcome handed to requests waiting on it. The BullMQ backend runs the jobs
// BullMQ hands this replica through the same runJob (its waiting line stays empty). A transient store fault (a
// connection cut, a lost conflict) never fails a job: its store steps are retried, its run is run again (executors are
// pure functions of their input), and past the retries the job is handed back to wait, not failed.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../sched/clock.js'
import { Refusal, type RefusalBody } from '../http/refusal.js'
import type { ProgressSnapshot } from '../mill/progress.js'
import { TaskCancelled, taskScope } from '../mill/scope.js'
import { backoffMs, retryTransient, storeFaultOf, storeRefusal } from '../store/faults.js'
import { withJobEffects } from './effects.js'
import { JsonBytes } from '../json/bytes.js'
import { LOOP_VALUE_MAX_BYTES } from '../json/loop-rule.js'
import type { JobChannel } from './channel.js'
import { createDurationHistogram } from './durations.js'
import { cancelledRefusal, progressOf, refusalFrom } from './outcomes.js'
import { QUEUED_PROGRESS, type JobRepository } from './repository.js'
import { isFinal, StoredInput, type DefineOptions, type JobEvent, type JobExecutor, type JobProgress, type JobRecord, type SettledJob } from './types.js'

export interface LocalRunnerOptions {
  repo: JobRepository
  channel: JobChannel
  clock: Clock
  concurrency: number
  maxRunMs: number
  log?: FastifyBaseLogger
  /** A job handed back after transient faults outlasted its retries (queued again): how this backend runs it later. */
  handBack?: (id: string) => void
}

/** Store steps (start, input, finish) retried over a fault: about 20 s of backoff before the fault is reported. */
const STORE_RETRY = { attempts: 12, baseMs: 50, maxMs: 3000 }
/** Runs of a job whose executor met a transient fault, before it is handed back to wait. */
const RUN_ATTEMPTS = 5

export interface ActiveRun {
  controller: AbortController
  progress: JobProgress
  /** Wall-clock start of this run (progress ETA), independent of the injected clock. */
  startedWall: number
  timedOut: boolean
  /** Its effects were written and the job sealed: it ends succeeded, a cancel can no longer win. */
  sealed: boolean
  /** What its answer stands on (src/jobs/effects.ts noteRunningJobEffect). */
  effect?: string
  done: Promise<void>
}

type FinalState = 'succeeded' | 'failed' | 'cancelled'
interface FinalOutcome { result?: JsonBytes; error?: unknown; refuse?: RefusalBody; effect?: string }

export type LocalRunner = ReturnType<typeof createLocalRunner>

export function createLocalRunner(opts: LocalRunnerOptions) {
  const { repo, channel, clock, concurrency, maxRunMs, log } = opts
  const executors = new Map<string, JobExecutor>()
  /** Ops whose executor reads a large input from its JSON bytes (DefineOptions.storedBytes). */
  const storedBytes = new Set<string>()
  const waiting: string[] = []
  const active = new Map<string, ActiveRun>()
  const seqs = new Map<string, number>()
  /** What a waiting request gets: the executor's own value or error (kept only until the job is final and read). */
  const waiters = new Map<string, Array<(settled: SettledJob) => void>>()
  /**
   * Inputs of jobs submitted in this process, by job id, until their run starts or they end (keepInput): the run takes
   * the value or the stored JSON it was submitted with instead of reading its parts back (megabytes, maybe). At most
   * IN_HAND_MAX_BYTES of them in all: the inputs of a full queue (MILL_QUEUE × 16 MiB) would otherwise be held outside
   * every memory bound; past it, a run reads its input back from the store, as after a restart.
   */
  const inputs = createInHand()
  const durations = createDurationHistogram()
  /** closing: no new submissions or runs (a drain); abandoned: the drain is over, runs still going are given up. */
  const flags = { started: false, closing: false, abandoned: false }

  const withLive = (job: JobRecord): JobRecord => {
    const live = active.get(job.id)
    return live && job.state === 'running' ? { ...job, progress: live.progress } : job
  }

  function publish(type: JobEvent['type'], job: JobRecord, result?: JsonBytes): void {
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

  /**
   * Writes a final state once; publishes it and hands the outcome to waiting requests. Answers whether this end was
   * written (false: another end, or a seal, came first). Retried over transient faults: a try whose commit was lost
   * with its connection is recognised by its own finish time.
   */
  async function finish(job: JobRecord, state: FinalState, outcome: FinalOutcome): Promise<boolean> {
    const now = clock.now()
    const progress: JobProgress = { ...(active.get(job.id)?.progress ?? job.progress), phase: state, eta_s: null }
    let faulted = false
    const final = await retryTransient(async () => {
      if (faulted) {
        const row = await repo.get(job.id)
        if (row && row.state === state && row.finishedAt === now) return row
      }
      try {
        return await repo.finish(job.id, state, { result: outcome.result, refuse: outcome.refuse ?? null, effect: outcome.effect ?? null, progress, now })
      } catch (err) {
        faulted = true
        throw err
      }
    }, STORE_RETRY)
    if (!final) return false
    inputs.take(job.id)
    if (final.startedAt !== null) durations.record(now - final.startedAt)
    publish(state, final, state === 'succeeded' ? outcome.result : undefined)
    settle(job.id, state === 'succeeded' ? { job: final, ok: true, result: outcome.result ?? null } : { job: final, ok: false, error: outcome.error ?? refusalFrom(outcome.refuse!) })
    return true
  }

  /** queued → running, retried over transient faults (a try whose commit was lost is recognised by its start time). */
  async function start(id: string): Promise<JobRecord | null> {
    const now = clock.now()
    let faulted = false
    return retryTransient(async () => {
      if (faulted) {
        const row = await repo.get(id)
        if (row?.state === 'running' && row.startedAt === now) return row
      }
      try {
        return await repo.start(id, now)
      } catch (err) {
        faulted = true
        throw err
      }
    }, STORE_RETRY)
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
      sealed: false,
      done: new Promise<void>((resolve) => (release = resolve)),
    }
    active.set(id, entry)
    return { entry, release }
  }

  async function runJob(id: string): Promise<void> {
    const { entry, release } = beginRun(id)
    let running: JobRecord | null = null
    try {
      const handed = inputs.take(id)
      running = await start(id)
      if (running) await run(running, inputOf(running.op, handed ? handed.input : await retryTransient(() => repo.input(id), STORE_RETRY)), entry)
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
    let ending: [FinalState, FinalOutcome] | null = null
    // Its effects (a research run) are written in the transaction that seals the job (src/jobs/effects.ts).
    const effects = {
      jobId: running.id,
      seal: async (tx: Parameters<JobRepository['seal']>[0]) => {
        if (!(await repo.seal(tx, running.id, clock.now()))) throw new TaskCancelled(false)
        entry.sealed = true
      },
      note: (effect: string) => {
        entry.effect = effect
      },
    }
    try {
      const executor = executors.get(running.op)
      if (!executor) throw new Refusal('internal', `no executor is defined for ${running.op} in this process`, { op: running.op })
      const onProgress = (snapshot: ProgressSnapshot) => {
        entry.progress = progressOf(snapshot, entry.startedWall)
        publish('progress', withLive(running))
      }
      for (let attempt = 1; ending === null; attempt++) {
        try {
          const result = await taskScope.run({ signal: controller.signal, onProgress, maxMs: maxRunMs }, () =>
            withJobEffects(effects, () => executor(input, { jobId: running.id, owner: running.owner, signal: controller.signal, maxMs: maxRunMs })))
          // A sealed job's effects are stored: it ends with its answer, whatever came after.
          if (controller.signal.aborted && !entry.sealed) throw new TaskCancelled(false)
          ending = ['succeeded', entry.effect === undefined ? { result } : { result, effect: entry.effect }]
        } catch (err) {
          if (flags.abandoned) return
          if (storeFaultOf(err) !== 'transient' || controller.signal.aborted) {
            ending = failureOf(err, running, entry, maxRunMs, log)
          } else if (attempt >= RUN_ATTEMPTS) {
            return await handBack(running, err)
          } else {
            log?.warn({ err, job: running.id, attempt }, 'job run met a transient store fault; running it again')
            await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, 200, 5000)))
          }
        }
      }
    } finally {
      clearTimeout(budget)
    }
    // Given up at shutdown: the row stays `running` and the next start (or another replica) re-runs it.
    if (flags.abandoned) return
    await finish(running, ...ending)
  }

  /**
   * Shutting down: no new runs start; those in flight have until `ms` to finish (their waiting requests get their
   * answers, as at any other time), then the rest are given up (aborted, their rows left to be re-run).
   */
  async function drain(ms: number): Promise<void> {
    flags.closing = true
    if (active.size > 0 && ms > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all([...active.values()].map((run) => run.done)),
        new Promise((resolve) => { timer = setTimeout(resolve, ms) }),
      ])
      clearTimeout(timer)
    }
    flags.abandoned = true
    for (const live of active.values()) live.controller.abort()
  }

  /** Transient faults outlasted the run's retries: the job waits again (queued) and this backend runs it later. */
  async function handBack(job: JobRecord, err: unknown): Promise<void> {
    log?.warn({ err, job: job.id }, 'job handed back to wait: the store kept failing transiently')
    if (await retryTransient(() => repo.requeue(job.id), STORE_RETRY)) opts.handBack?.(job.id)
  }

  /**
   * Whether a job runs from its input's JSON bytes: an input over LOOP_VALUE_MAX_BYTES, whatever door it came by, of an
   * op whose executor reads them in the mill (DefineOptions.storedBytes). Any other input runs from its value.
   */
  const runsFromBytes = (op: string, json: JsonBytes): boolean => storedBytes.has(op) && json.byteLength > LOOP_VALUE_MAX_BYTES

  /** What an executor is handed: a value, or the JSON its input was stored as where the job runs from bytes. */
  function inputOf(op: string, input: unknown): unknown {
    if (!(input instanceof JsonBytes)) return input
    return runsFromBytes(op, input) ? input : input.value()
  }

  /**
   * Keeps a submission's input for its run in this process: its stored JSON where the job runs from bytes, or where
   * the input came as JSON already (a large body's, written in the mill: StoredInput); else the value it came as.
   */
  function keepInput(id: string, op: string, input: unknown, json: JsonBytes): void {
    inputs.keep(id, runsFromBytes(op, json) || input instanceof StoredInput ? json : input ?? null, json.byteLength)
  }

  /** How an op's jobs run (both backends define through this). */
  function defineExecutor(op: string, executor: JobExecutor, options: DefineOptions | undefined): void {
    executors.set(op, executor)
    if (options?.storedBytes) storedBytes.add(op)
  }

  // runJob is also how a distributed backend runs a job it was handed (its own dispatch instead of the waiting line).

  return { defineExecutor, keepInput, executors, waiting, active, waiters, inputs, durations, flags, withLive, publish, finish, pump, runJob, settle, drain }
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
  // A store fault that is no bug (a full disk, a row deleted under the run): its clean refusal, not `internal`.
  const refusal = storeRefusal(err)
  if (refusal) return ['failed', { error: refusal, refuse: refusal.forOp(job.op).toBody() }]
  log?.error({ err, job: job.id, op: job.op }, 'job failed')
  const refuse: RefusalBody = { code: 'internal', reason: `job ${job.id} failed on an internal error (logged with the job id)`, op: job.op, http_status: 500 }
  return ['failed', { error: err, refuse }]
}

/** The most bytes of submitted inputs kept in hand for runs not yet started (their stored JSON's size). */
export const IN_HAND_MAX_BYTES = 64 * 2 ** 20

/** Submitted inputs kept for their runs, up to IN_HAND_MAX_BYTES in all: one past it is not kept (read back instead). */
export function createInHand() {
  const kept = new Map<string, { input: unknown; bytes: number }>()
  let bytes = 0
  return {
    keep(id: string, input: unknown, size: number): void {
      if (kept.has(id) || bytes + size > IN_HAND_MAX_BYTES) return
      kept.set(id, { input, bytes: size })
      bytes += size
    },
    /** The input kept for `id`, no longer kept; undefined when none was. */
    take(id: string): { input: unknown } | undefined {
      const found = kept.get(id)
      if (found) {
        kept.delete(id)
        bytes -= found.bytes
      }
      return found
    },
    get bytes() {
      return bytes
    },
  }
}
