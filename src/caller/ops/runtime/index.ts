// The operations of the runtime lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { race } from './race.js'

export const runtimeOperations: AnyOperation[] = [race]
