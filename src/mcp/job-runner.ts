// A heavy tool as a job: the same executor its HTTP route submits to. The job's progress becomes
// notifications/progress (when the client sent a progressToken); the client's notifications/cancelled cancels the job.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import type { JobProgress, JobQueue } from '../jobs/types.js'
import type { ToolJob } from './tools.js'

type Extra = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'signal' | '_meta' | 'sendNotification'>

/** One line for a progress notification: the phase, then the counters (SAT: conflicts, decisions…). */
export function progressMessage(progress: JobProgress): string {
  const counters = Object.entries(progress.counters).map(([name, value]) => `${name} ${value}`).join(', ')
  const share = progress.done !== null && progress.total !== null ? ` ${progress.done}/${progress.total}` : ''
  return `${progress.phase}${share}${counters ? ` (${counters})` : ''}`
}

/**
 * Submits the job for its owner (the principal of the MCP request), relays its progress, cancels it when the request
 * is cancelled; answers what the job answered.
 */
export async function runAsJob(jobs: JobQueue, job: ToolJob, input: unknown, owner: string, extra: Extra): Promise<{ id: string; result: unknown }> {
  const { job: record } = await jobs.submit({ op: job.op, surface: job.surface, owner, input })
  const token = extra._meta?.progressToken
  let last = -Infinity
  let seen = 0
  const unsubscribe = token === undefined ? () => undefined : jobs.subscribe(record.id, (event) => {
    if (event.type !== 'progress' && event.type !== 'running') return
    const progress = event.job.progress
    // MCP asks progress to increase: done/total where the engine knows a total, else a count of updates.
    const value = progress.done ?? ++seen
    if (value <= last) return
    last = value
    void extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: token, progress: value, ...(progress.total !== null ? { total: progress.total } : {}), message: progressMessage(progress) },
    }).catch(() => undefined)
  })
  const cancel = () => { void jobs.cancel(record.id) }
  if (extra.signal.aborted) cancel()
  extra.signal.addEventListener('abort', cancel, { once: true })
  try {
    const settled = await jobs.settled(record.id)
    if (!settled.ok) throw settled.error
    // The job's written answer as it is: toolAnswer inlines it as data when small, else links its result URL.
    return { id: record.id, result: settled.result }
  } finally {
    unsubscribe()
    extra.signal.removeEventListener('abort', cancel)
  }
}
