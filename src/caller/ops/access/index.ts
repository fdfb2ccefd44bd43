// The operations of the access lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { grant } from './grant.js'
import { pin } from './pin.js'
import { pinText } from './pin-text.js'
import { upgrade } from './upgrade.js'

export const accessOperations: AnyOperation[] = [grant, pin, pinText, upgrade]
