// The operations of the capacity lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { kv } from './kv.js'
import { fit } from './fit.js'
import { peft } from './peft.js'
import { adapters } from './adapters.js'
import { budget } from './budget.js'
import { pack } from './pack.js'
import { occupancy } from './occupancy.js'
import { card } from './card.js'

export const capacityOperations: AnyOperation[] = [kv, fit, peft, adapters, budget, pack, occupancy, card]
