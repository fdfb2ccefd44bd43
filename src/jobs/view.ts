// How a job is shown (the resource of GET …/jobs/{id}) and how an answer is stored so its later read equals the sync answer.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import type { JsonBytes } from '../json/bytes.js'
import { writtenBy } from '../json/serializer.js'
import type { JobRecord, JobSurface, JobView } from './types.js'

export const SURFACE_PREFIX: Record<JobSurface, string> = { caller: '/api/v1', trading: '/api/v11' }

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

export function jobView(job: JobRecord): JobView {
  const base = `${SURFACE_PREFIX[job.surface]}/jobs/${job.id}`
  return {
    id: job.id,
    op: job.op,
    state: job.state,
    progress: job.progress,
    created_at: iso(job.createdAt)!,
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
    result_url: job.state === 'succeeded' && job.purgedAt === null ? `${base}/result` : null,
    cancel_url: job.state === 'queued' || job.state === 'running' ? base : null,
    refuse: job.refuse,
    attempts: job.attempts,
    url: base,
    events_url: `${base}/events`,
  }
}

/**
 * The answer as the sync route sends it, then stored, sent and streamed as those bytes, so GET …/result sends exactly
 * the bytes the sync call did: a large answer comes written where it was computed (the mill), a small one is written
 * here by the route's own serializer.
 */
export function answerWriter(schema: z.ZodType): (value: unknown) => JsonBytes {
  return (value) => writtenBy(schema, value)
}

/** RFC 7240: `Prefer: respond-async` (among other preferences, any case). */
export function prefersAsync(req: FastifyRequest): boolean {
  const prefer = req.headers.prefer
  const values = Array.isArray(prefer) ? prefer.join(',') : prefer ?? ''
  return values.split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'respond-async')
}

export function idempotencyKeyOf(req: FastifyRequest): string | null {
  const key = req.headers['idempotency-key']
  return typeof key === 'string' && key.length > 0 && key.length <= 200 ? key : null
}

/** 202 Accepted with the job's Location; the caller envelope or plain JSON frames the body. */
export function accepted(reply: FastifyReply, job: JobRecord, created: boolean): FastifyReply {
  const view = jobView(job)
  reply.code(202).header('location', view.url).header('preference-applied', 'respond-async')
  if (!created) reply.header('idempotent-replayed', 'true')
  return reply
}
