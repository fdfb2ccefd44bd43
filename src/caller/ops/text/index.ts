// The operations of the text lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { digest } from './digest.js'
import { diff } from './diff.js'

export const textOperations: AnyOperation[] = [digest, diff]
