// The registry: every caller operation, checked for unique names and routes. Everything that lists operations reads this.
import type { AnyOperation, Registry } from './operation.js'
import { isStoredInputOp, STORED_INPUTS } from '../inputs/stored.js'
import { discoveryOperations } from './ops/discovery/index.js'
import { logicOperations } from './ops/logic/index.js'
import { capacityOperations } from './ops/capacity/index.js'
import { textOperations } from './ops/text/index.js'
import { accessOperations } from './ops/access/index.js'
import { orchestrationOperations } from './ops/orchestration/index.js'
import { runtimeOperations } from './ops/runtime/index.js'

export function createRegistry(operations: readonly AnyOperation[]): Registry {
  const byName = new Map<string, AnyOperation>()
  const routes = new Set<string>()
  for (const op of operations) {
    if (byName.has(op.name)) throw new Error(`two operations are named ${op.name}`)
    const route = `${op.method} ${op.path}`
    if (routes.has(route)) throw new Error(`two operations answer ${route}`)
    if (op.examples.length === 0) throw new Error(`operation ${op.name} has no example`)
    checkBodyInTheMill(op)
    byName.set(op.name, op)
    routes.add(route)
  }
  const frozen = Object.freeze([...operations])
  return { operations: frozen, byName: (name) => byName.get(name) }
}

/**
 * An operation reads a large body in the mill in one of two ways: a light one answers from it (fromBody), a heavy one
 * stores it as its job's input and runs from those bytes (fromStored), by the rules inputs/stored.ts gives the mill:
 * its schema and input action must be the operation's own, so the mill's refusals are the route's.
 */
function checkBodyInTheMill(op: AnyOperation): void {
  if (op.fromBody && op.heavy) throw new Error(`operation ${op.name} is heavy: its jobs store its input, so it reads a large body with fromStored`)
  const rules = isStoredInputOp(op.name) ? STORED_INPUTS[op.name] : undefined
  if (op.fromStored === undefined && rules === undefined) return
  if (!op.heavy || !op.fromStored || !rules) throw new Error(`operation ${op.name}: fromStored is for heavy operations with rules in inputs/stored.ts`)
  if (rules.schema !== op.input || rules.inputAction !== op.inputAction) {
    throw new Error(`operation ${op.name}: the rules inputs/stored.ts gives the mill are not its own input and inputAction`)
  }
}

export const registry: Registry = createRegistry([
  ...discoveryOperations,
  ...logicOperations,
  ...capacityOperations,
  ...textOperations,
  ...accessOperations,
  ...orchestrationOperations,
  ...runtimeOperations,
])
