// The operations of the capacity lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'

export const capacityOperations: AnyOperation[] = []
