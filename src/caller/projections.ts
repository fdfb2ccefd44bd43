// Projections of operations shared by listings, docs and the CLI: JSON Schema of inputs, curl lines, grouping.
import { POLICY, type Rule } from '../access/policy.js'
import { z } from 'zod'
import { CALLER_PREFIX } from '../http/envelope.js'
import { actionsOf, LOBES, type AnyOperation, type Lobe } from './operation.js'

type JsonSchema = Readonly<Record<string, unknown>>

// Operations are frozen, so their schemas are converted once: /ops converting all of them per request cost ~15 ms.
const inputSchemas = new WeakMap<AnyOperation, JsonSchema>()
const outputSchemas = new WeakMap<AnyOperation, JsonSchema>()

function converted(cache: WeakMap<AnyOperation, JsonSchema>, op: AnyOperation, io: 'input' | 'output'): JsonSchema {
  let schema = cache.get(op)
  if (!schema) {
    const fresh = z.toJSONSchema(io === 'input' ? op.input : op.output, { io, unrepresentable: 'any' }) as Record<string, unknown>
    delete fresh.$schema
    schema = deepFreeze(fresh)
    cache.set(op, schema)
  }
  return schema
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/** JSON Schema (draft 2020-12) of an operation's input, as agents and MCP clients read it. Shared and frozen. */
export const inputJsonSchema = (op: AnyOperation): JsonSchema => converted(inputSchemas, op, 'input')

/** JSON Schema of an operation's `data`. Shared and frozen. */
export const outputJsonSchema = (op: AnyOperation): JsonSchema => converted(outputSchemas, op, 'output')

export const fullPath = (op: AnyOperation): string => CALLER_PREFIX + (op.path === '/' ? '/' : op.path)

/**
 * What an operation's first example needs beyond the host: the admin token for admin-only operations (refused on a
 * host without ADMIN_TOKEN), a credential with the example's scope when the host has ADMIN_TOKEN set. The curl line
 * sends it from a shell variable, never a value.
 */
export function exampleCredential(op: AnyOperation, hostOpen: boolean): { variable: string; needs: string } | null {
  const rules = actionsOf(op, op.examples[0] ?? {}).map((action) => POLICY[action] as Rule)
  if (rules.some((rule) => rule.need === 'admin')) {
    return { variable: 'ADMIN_TOKEN', needs: 'the admin token: the server started with ADMIN_TOKEN set, and the same value in $ADMIN_TOKEN here' }
  }
  const scopes = rules.flatMap((rule) => (rule.need === 'scope' ? [rule.scope] : rule.need === 'heavy' ? ['run:heavy'] : []))
  if (scopes.length && !hostOpen) return { variable: 'NCM_TOKEN', needs: `a bearer credential with scope ${scopes.join(' and ')} in $NCM_TOKEN` }
  return null
}

/** A runnable curl line for the first example, sending the credential it needs (see exampleCredential). */
export function curlLine(op: AnyOperation, base: string, hostOpen = true): string {
  const example = op.examples[0] ?? {}
  const credential = exampleCredential(op, hostOpen)
  const auth = credential ? ` -H "authorization: Bearer $${credential.variable}"` : ''
  if (op.method === 'GET') {
    const query = new URLSearchParams(example as Record<string, string>).toString()
    return `curl -s${auth} '${base}${fullPath(op)}${query ? `?${query}` : ''}'`
  }
  const body = JSON.stringify(example).replaceAll("'", "'\\''")
  return `curl -s${auth} -X POST '${base}${fullPath(op)}' -H 'content-type: application/json' -d '${body}'`
}

export function byLobe(operations: readonly AnyOperation[]): Record<Lobe, AnyOperation[]> {
  const out = Object.fromEntries(LOBES.map((lobe) => [lobe, [] as AnyOperation[]])) as Record<Lobe, AnyOperation[]>
  for (const op of operations) out[op.lobe].push(op)
  return out
}
