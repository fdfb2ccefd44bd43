// The operations of the text lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'

export const textOperations: AnyOperation[] = []
