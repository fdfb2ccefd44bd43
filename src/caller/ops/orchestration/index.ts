// The operations of the orchestration lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { chat } from './chat.js'

export const orchestrationOperations: AnyOperation[] = [chat]
