// The registry: every caller operation, checked for unique names and routes. Everything that lists operations reads this.
import type { AnyOperation, Registry } from './operation.js'
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
    // A job stores its input as a value.
    if (op.fromBody && op.heavy) throw new Error(`operation ${op.name} is heavy: its jobs store its input, so it cannot read its body in the mill`)
    byName.set(op.name, op)
    routes.add(route)
  }
  const frozen = Object.freeze([...operations])
  return { operations: frozen, byName: (name) => byName.get(name) }
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
