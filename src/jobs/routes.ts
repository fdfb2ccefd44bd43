// …/jobs on both surfaces: list, read, result, cancel, and the Server-Sent Events stream. One plugin, two framings:
// under /api/v1 the caller envelope wraps every answer; under /api/v11 answers are plain JSON and errors problems.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Action } from '../access/policy.js'
import { z } from 'zod'
import { okEnvelope, refusalEnvelope } from '../http/envelope.js'
import { pageAnswer, pageQueryFields, pageSchema } from '../http/paging.js'
import { Refusal } from '../http/refusal.js'
import { problemResponses } from '../http/problem.js'
import { refusalFrom } from './local-queue.js'
import { streamJobEvents } from './sse.js'
import { isFinal, JOB_STATES, jobViewSchema, type JobQueue, type JobRecord } from './types.js'
import { jobView } from './view.js'

export interface JobRoutesOptions {
  framing: 'caller' | 'trading'
  /** Seconds between SSE comment lines that keep proxies from closing an idle stream. */
  heartbeatS?: number
}

const idParams = z.object({ id: z.string().min(1).max(64).describe('the job id, or a prefix of it (at least 4 characters) that starts one job only') })
/** A whole job id (a random UUID), and what may abbreviate one. */
const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ID_PREFIX = /^[0-9a-f][0-9a-f-]{3,34}$/
/** Candidates an ambiguous prefix names. */
const MAX_CANDIDATES = 10
const listQuery = z.object({
  state: z.enum(JOB_STATES).optional(),
  op: z.string().min(1).max(100).optional(),
  ...pageQueryFields,
}).strict()

export default async function jobRoutes(app: FastifyInstance, opts: JobRoutesOptions) {
  const jobs = app.jobs
  const caller = opts.framing === 'caller'
  const heartbeatMs = (opts.heartbeatS ?? 15) * 1000
  const tags = [caller ? 'jobs' : 'trading v11']
  const responses = <T extends z.ZodType>(schema: T, extra: Record<number, z.ZodType> = {}) => caller
    ? { 200: okEnvelope(schema), ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, okEnvelope(v)])), '4xx': refusalEnvelope, '5xx': refusalEnvelope }
    : { 200: schema, ...extra, ...problemResponses }

  /**
   * The job a path names (by its id, or as git abbreviates by a prefix of at least 4 characters that starts one job
   * only) if the request's principal may take `action` on it: its owner, or an admin (the access policy). A stranger
   * is told exactly what an unknown id gets, so an id it saw tells it nothing.
   */
  async function found(req: FastifyRequest, action: Action = 'job.read'): Promise<JobRecord> {
    const id = await resolvedId(req, (req.params as { id: string }).id)
    const job = await jobs.get(id)
    const unknown = () => new Refusal('not_found', `no job ${id}`, { hints: { list: caller ? '/api/v1/jobs' : '/api/v11/jobs' } })
    if (!job) throw unknown()
    if (!app.policy.allows(req.principal, action, { kind: 'job', id, owners: [job.owner] })) throw unknown()
    if (job.purgedAt !== null) throw purgedRefusal(job)
    return job
  }

  /** A prefix is looked up among the principal's own jobs (every job's for one that may list them all). */
  async function resolvedId(req: FastifyRequest, id: string): Promise<string> {
    const lower = id.toLowerCase()
    if (FULL_ID.test(lower) || !ID_PREFIX.test(lower)) return id
    const owner = app.policy.allows(req.principal, 'job.list') ? null : req.principal.owner
    const ids = await jobs.idsStartingWith(lower, MAX_CANDIDATES + 1, owner)
    if (ids.length === 1) return ids[0]!
    if (ids.length === 0) throw new Refusal('not_found', `no job id starts with ${id}`, { hints: { list: caller ? '/api/v1/jobs' : '/api/v11/jobs' } })
    const count = ids.length > MAX_CANDIDATES ? `more than ${MAX_CANDIDATES}` : String(ids.length)
    throw new Refusal('invalid_input', `the job id prefix ${id} is ambiguous: ${count} jobs start with it; give more characters`, {
      issues: [{ path: 'id', message: `ambiguous prefix (${count} jobs)` }],
      hints: { candidates: ids.slice(0, MAX_CANDIDATES) },
    })
  }

  // The list hands out every principal's jobs: admin:read (the access policy's job.list, asked at the door).
  app.get('/', {
    schema: {
      tags, summary: 'Jobs, newest first, paged; filter by state and op (scope admin:read when ADMIN_TOKEN is set)', querystring: listQuery,
      response: responses(pageSchema('jobs', jobViewSchema)),
    },
  }, async (req) => {
    const query = req.query as z.infer<typeof listQuery>
    const page = await jobs.list(query)
    return pageAnswer('jobs', page, jobView)
  })

  app.get('/:id', {
    schema: { tags, summary: 'One job: state, progress (fraction null where the work has no known total), times, result URL', params: idParams, response: responses(jobViewSchema) },
  }, async (req) => jobView(await found(req)))

  app.get('/:id/result', {
    config: { largeAnswer: true },
    schema: {
      tags, summary: 'The answer of a succeeded job: exactly what the synchronous call returns; a failed job answers its refusal',
      params: idParams, response: responses(z.unknown()),
    },
  }, async (req) => {
    return resultOf(jobs, await found(req))
  })

  app.delete('/:id', {
    schema: {
      tags, summary: 'Cancel: queued work stops at once, running work within 200 ms (a worker that does not stop is replaced)',
      params: idParams, response: responses(jobViewSchema, { 202: jobViewSchema }),
    },
  }, async (req, reply) => {
    const job = (await jobs.cancel((await found(req, 'job.cancel')).id))!
    return reply.code(isFinal(job.state) ? 200 : 202).send(jobView(job))
  })

  app.get('/:id/events', {
    schema: {
      tags,
      summary: 'Server-Sent Events: `progress` events, then one `succeeded`, `failed` or `cancelled` event with the result or refusal',
      description: 'Reads with EventSource or `curl -N`. A reconnect with `Last-Event-ID` resumes from the latest state; after the final event ' +
        'a reconnect answers 204 (EventSource stops). Comment lines keep idle proxies open.',
      params: idParams,
    },
  }, async (req, reply) => streamJobEvents(jobs, app.jobStreams, app.memory, heartbeatMs, req, reply, await found(req)))
}

function purgedRefusal(job: JobRecord): Refusal {
  const finished = job.finishedAt === null ? 'finished' : `finished at ${new Date(job.finishedAt).toISOString()}`
  return new Refusal('not_found', `job ${job.id} (${job.op}) ${finished} and was purged at ${new Date(job.purgedAt!).toISOString()}: answers are kept for JOB_RETENTION_H hours`, {
    op: job.op,
    hints: { purged: true, purged_at: new Date(job.purgedAt!).toISOString() },
  })
}

/** A job's result endpoint: the synchronous answer of a succeeded job, else the refusal its state calls for. */
async function resultOf(jobs: JobQueue, job: JobRecord): Promise<unknown> {
  const outcome = await jobs.outcome(job.id)
  switch (outcome.kind) {
    case 'succeeded': return outcome.result
    case 'failed': throw refusalFrom(outcome.refuse)
    case 'cancelled': throw new Refusal('conflict', `job ${job.id} was cancelled; it has no result`, { op: job.op })
    case 'purged': throw purgedRefusal(job)
    case 'pending': throw new Refusal('conflict', `job ${job.id} is ${outcome.state}; its result is not ready (watch ${jobView(job).events_url})`, {
      op: job.op, retryAfterS: 1, hints: { state: outcome.state },
    })
    default: throw new Refusal('not_found', `no job ${job.id}`)
  }
}
