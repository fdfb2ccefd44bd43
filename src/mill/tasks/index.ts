// Every task the mill can run, by name. Each domain owns one file here; a task is a pure function of its payload.
import type { MillTask } from '../types.js'
import { logicTasks } from './logic.js'
import { capacityTasks } from './capacity.js'
import { tradingTasks } from './trading.js'
import { runtimeTasks } from './runtime.js'
import { textTasks } from './text.js'
import { selfTestTasks } from './self-test.js'

export const TASKS: Readonly<Record<string, MillTask>> = Object.freeze({
  ...selfTestTasks,
  ...logicTasks,
  ...capacityTasks,
  ...tradingTasks,
  ...runtimeTasks,
  ...textTasks,
})
