// What a mill task answers: its value with warnings, or the refusal of its input as data (class instances do not
// cross the thread boundary).

/** Input problems found off the event loop travel back as data (class instances do not cross the thread boundary). */
export interface TaskRefusal {
  code: 'invalid_input' | 'over_limit'
  reason: string
  issues?: Array<{ path: string; message: string }>
  hints?: Record<string, unknown>
}

export type TaskResult<T> = { ok: true; value: T; warnings: string[] } | { ok: false; refusal: TaskRefusal }
