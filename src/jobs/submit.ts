// The one entry of heavy routes on both surfaces: submit a job, then either answer 202 (Prefer: respond-async) or
// wait for it and answer as the synchronous call always did.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Refusal } from '../http/refusal.js'
import type { JobQueue, JobSurface, JobView } from './types.js'
import { accepted, idempotencyKeyOf, jobView, prefersAsync } from './view.js'

export type Submitted = { async: true; view: JobView } | { async: false; result: unknown }

export async function submitOrWait(
  jobs: JobQueue,
  req: FastifyRequest,
  reply: FastifyReply,
  job: { op: string; surface: JobSurface; input: unknown },
): Promise<Submitted> {
  // The job belongs to whoever submits it (req.principal, set by the host's access plugin).
  const { job: record, created } = await jobs.submit({ ...job, owner: req.principal.owner, idempotencyKey: idempotencyKeyOf(req) })
  if (prefersAsync(req)) {
    accepted(reply, record, created)
    return { async: true, view: jobView(record) }
  }
  const settled = await jobs.settled(record.id)
  if (settled.ok) return { async: false, result: settled.result }
  const { error } = settled
  throw error instanceof Refusal ? error.forOp(job.op) : error
}
