// Every task the mill can run, by name. Each domain owns one file here; a task is a pure function of its payload.
// The table's type is the mill's contract: `Mill.run(name, input)` takes `In<name>` and answers `Out<name>`.
import { logicTasks } from './logic.js'
import { capacityTasks } from './capacity.js'
import { tradingTasks } from './trading.js'
import { runtimeTasks } from './runtime.js'
import { textTasks } from './text.js'
import { accessTasks } from './access.js'
import { selfTestTasks } from './self-test.js'
import { docsTasks } from './docs.js'
import { bodyTasks } from './body.js'
import { storedInputTasks } from './stored-input.js'
import { runItemsTasks } from './run-items.js'
import { cliCommandTasks } from './cli-command.js'
import { mcpMessageTasks } from './mcp-message.js'
import { mcpAnswerTasks } from './mcp-answer.js'

export const TASKS = Object.freeze({
  ...selfTestTasks,
  ...logicTasks,
  ...capacityTasks,
  ...tradingTasks,
  ...runtimeTasks,
  ...textTasks,
  ...accessTasks,
  ...docsTasks,
  ...bodyTasks,
  ...storedInputTasks,
  ...runItemsTasks,
  ...cliCommandTasks,
  ...mcpMessageTasks,
  ...mcpAnswerTasks,
})

export type Tasks = typeof TASKS
export type TaskName = keyof Tasks
/** What a task takes. */
export type In<K extends TaskName> = Parameters<Tasks[K]>[0]
/** What a task answers. */
export type Out<K extends TaskName> = ReturnType<Tasks[K]>
