// Mill tasks of the trading domain.
import type { MillTask } from '../types.js'

export const tradingTasks: Record<string, MillTask> = {}
