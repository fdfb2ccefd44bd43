// Mill tasks of the runtime domain.
import type { MillTask } from '../types.js'

export const runtimeTasks: Record<string, MillTask> = {}
