// Decorates the instance with the job queue (`app.jobs`): the in-process API other modules call (submit, get,
// subscribe, cancel). Surfaces define their executors while registering; the queue starts once all are defined.
// With REDIS_URL the queue is the BullMQ one (jobs dispatched to any replica); without it, the in-process one.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import type { Clock } from '../sched/clock.js'
import { createLocalJobQueue } from '../jobs/local-queue.js'
import type { JobQueue } from '../jobs/types.js'
import { createStreamSlots, type StreamSlots } from '../http/stream-slots.js'
import { sharedStreamSlots } from '../redis/stream-leases.js'

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobQueue
    /** Open job event streams per client, shared by both surfaces' …/jobs/{id}/events. */
    jobStreams: StreamSlots
  }
}

export interface JobsPluginOptions {
  config: Config
  clock: Clock
  /** Another backend behind the same interface; defaults to the one REDIS_URL selects. */
  queue?: JobQueue
}

export default fp(
  async function jobsPlugin(app: FastifyInstance, opts: JobsPluginOptions) {
    const queue = opts.queue ?? await queueFor(app, opts)
    app.decorate('jobs', queue)
    app.decorate('jobStreams', streamSlotsFor(app, opts.config.sseStreamsPerClient))
    app.addHook('onReady', async () => queue.start())
    // Before the mill closes: running jobs stay `running` in the store and are re-run by the next start (or, with
    // BullMQ, handed back to the shared queue at once for another replica).
    app.addHook('preClose', async () => queue.close())
  },
  { name: 'ncm-jobs', fastify: '5.x', dependencies: ['ncm-store', 'ncm-mill', 'ncm-redis'] },
)

/** Of SHUTDOWN_GRACE_MS, what closing everything after the job drain takes at most. */
const SHUTDOWN_RESERVE_MS = 4000

async function queueFor(app: FastifyInstance, { config, clock }: JobsPluginOptions): Promise<JobQueue> {
  const common = {
    store: app.store,
    clock,
    concurrency: config.millThreads,
    maxQueued: config.millQueue,
    perOwner: config.jobsPerClient,
    maxJobs: config.jobRetentionMaxJobs,
    retentionMs: config.jobRetentionH * 3_600_000,
    maxRunMs: config.jobMaxMs,
    // In-flight runs finish within the shutdown grace, leaving time to close the mill, Redis and the database.
    drainMs: Math.max(0, config.shutdownGraceMs - SHUTDOWN_RESERVE_MS),
    log: app.log,
  }
  if (!app.redis) return createLocalJobQueue(common)
  // Loaded only when used: a single process never pays for BullMQ.
  const { createBullJobQueue } = await import('../jobs/bullmq-queue.js')
  return createBullJobQueue({ ...common, redisUrl: app.redis.url, prefix: app.redis.prefix, commands: app.redis.commands })
}

/** One count per client across replicas with REDIS_URL (falling back to this process's while Redis is away). */
function streamSlotsFor(app: FastifyInstance, perClient: number): StreamSlots {
  const local = createStreamSlots(perClient)
  if (!app.redis) return local
  const shared = sharedStreamSlots(app.redis.commands, app.redis.prefix, perClient, local, {
    onError: (err, what) => app.log.warn({ err }, `job event streams: ${what} failed; counting in this process`),
  })
  app.addHook('onClose', async () => shared.stop())
  return shared
}
