// What the mill does while a task runs: the hard stop past its budget, and a job's progress and cancel.
import { readProgress, requestCancel } from './progress.js'
import { CANCEL_GRACE_MS, PROGRESS_POLL_MS, type TaskScope } from './scope.js'

/** After the soft deadline the task has this long to answer before its worker is terminated. */
export const HARD_STOP_GRACE_MS = 1000

/** Aborts the task once it has run for budget + grace; time spent waiting in the queue does not count. */
export function armHardStop(startedAt: (id: number) => number | null, id: number, timeoutMs: number) {
  const controller = new AbortController()
  let timer: NodeJS.Timeout
  const check = () => {
    const started = startedAt(id)
    if (started === null) {
      timer = setTimeout(check, timeoutMs + HARD_STOP_GRACE_MS)
      return
    }
    const remaining = started + timeoutMs + HARD_STOP_GRACE_MS - Date.now()
    if (remaining <= 0) controller.abort()
    else timer = setTimeout(check, remaining)
  }
  timer = setTimeout(check, timeoutMs + HARD_STOP_GRACE_MS)
  return { signal: controller.signal, abort: () => controller.abort(), disarm: () => clearTimeout(timer) }
}

/**
 * While a job's task runs: hands its progress to the job every PROGRESS_POLL_MS when it changed, and on cancel
 * raises the task's flag, then terminates the worker (piscina replaces it) if the task has not ended in CANCEL_GRACE_MS.
 */
export function watchTask(control: SharedArrayBuffer, scope: TaskScope, terminate: () => void) {
  let seen = 0
  let cancelled = false
  let terminated = false
  let escalation: NodeJS.Timeout | undefined
  const poll = setInterval(() => {
    const snapshot = readProgress(control)
    if (snapshot.writes !== seen) {
      seen = snapshot.writes
      scope.onProgress(snapshot)
    }
  }, PROGRESS_POLL_MS)
  const onAbort = () => {
    cancelled = true
    requestCancel(control)
    escalation = setTimeout(() => {
      terminated = true
      terminate()
    }, CANCEL_GRACE_MS)
  }
  if (scope.signal.aborted) onAbort()
  else scope.signal.addEventListener('abort', onAbort, { once: true })
  return {
    cancelled: () => cancelled,
    terminated: () => terminated,
    stop() {
      clearInterval(poll)
      clearTimeout(escalation)
      scope.signal.removeEventListener('abort', onAbort)
      // The last numbers, so a finished task's progress ends at its final count.
      const snapshot = readProgress(control)
      if (snapshot.writes !== seen) scope.onProgress(snapshot)
    },
  }
}
