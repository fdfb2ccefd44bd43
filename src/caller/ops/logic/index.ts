// The operations of the logic lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'

export const logicOperations: AnyOperation[] = []
