// The operations of the access lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'

export const accessOperations: AnyOperation[] = []
