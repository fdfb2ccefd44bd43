// The operations of the discovery lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'

export const discoveryOperations: AnyOperation[] = []
