// What a mill task answers: its value with warnings, or the refusal of its input as data (class instances do not
// cross the thread boundary), and the two conversions between a Refusal and that data.
import { Refusal } from '../../http/refusal.js'

/**
 * Input problems found off the event loop travel back as data (class instances do not cross the thread boundary):
 * an invalid input, one over a limit, or a name in it that nothing answers to (a command line's operation).
 */
export interface TaskRefusal {
  code: 'invalid_input' | 'over_limit' | 'not_found'
  reason: string
  issues?: Array<{ path: string; message: string }>
  hints?: Record<string, unknown>
  /** The operation it names, when not the one the task works for (a command line's). */
  op?: string
}

export type TaskResult<T> = { ok: true; value: T; warnings: string[] } | { ok: false; refusal: TaskRefusal }

/** A refusal of the input (a TaskRefusal code: the callers check) as data, to cross to the loop. */
export function refusalAsData(refusal: Refusal): TaskRefusal {
  const { issues, hints, op } = refusal.options
  return { code: refusal.code as TaskRefusal['code'], reason: refusal.message, ...(issues ? { issues } : {}), ...(hints ? { hints } : {}), ...(op ? { op } : {}) }
}

/** The Refusal a task's refusal data stands for. */
export function refusalOf({ code, reason, issues, hints, op }: TaskRefusal): Refusal {
  return new Refusal(code, reason, { ...(issues ? { issues } : {}), ...(hints ? { hints } : {}), ...(op ? { op } : {}) })
}
