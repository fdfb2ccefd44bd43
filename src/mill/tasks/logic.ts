// Mill tasks of the logic domain.
import type { MillTask } from '../types.js'

export const logicTasks: Record<string, MillTask> = {}
