// How a job's end is told: stored refusals rebuilt as thrown ones, the cancel refusal, and the progress a run reports.
import { Refusal, type RefusalBody } from '../http/refusal.js'
import type { ProgressSnapshot } from '../mill/progress.js'
import type { JobProgress } from './types.js'

/** The refusal a cancelled job answers with (its result endpoint and its final event). */
export function cancelledRefusal(op: string, terminated: boolean): RefusalBody {
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
