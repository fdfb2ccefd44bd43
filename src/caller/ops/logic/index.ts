// The operations of the logic lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { sat } from './sat.js'
import { jsonsat } from './jsonsat.js'
import { clauses } from './clauses.js'
import { quiz } from './quiz.js'

export const logicOperations: AnyOperation[] = [sat, jsonsat, clauses, quiz]
