// The operations of the runtime lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'

export const runtimeOperations: AnyOperation[] = []
