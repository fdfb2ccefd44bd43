// The operations of the orchestration lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { run } from './run.js'
import { cli } from './cli.js'
import { chat } from './chat.js'

export const orchestrationOperations: AnyOperation[] = [run, cli, chat]
