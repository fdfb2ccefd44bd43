// Mill tasks of the capacity domain.
import type { MillTask } from '../types.js'

export const capacityTasks: Record<string, MillTask> = {}
