// Projections of operations shared by listings, docs and the CLI: JSON Schema of inputs, curl lines, grouping.
import { z } from 'zod'
import { CALLER_PREFIX } from './index.js'
import { LOBES, type AnyOperation, type Lobe } from './operation.js'

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

/** A runnable curl line for the first example, against a server on the default address. */
export function curlLine(op: AnyOperation, base: string): string {
  const example = op.examples[0] ?? {}
  if (op.method === 'GET') {
    const query = new URLSearchParams(example as Record<string, string>).toString()
    return `curl -s '${base}${fullPath(op)}${query ? `?${query}` : ''}'`
  }
  const body = JSON.stringify(example).replaceAll("'", "'\\''")
  return `curl -s -X POST '${base}${fullPath(op)}' -H 'content-type: application/json' -d '${body}'`
}

export function byLobe(operations: readonly AnyOperation[]): Record<Lobe, AnyOperation[]> {
  const out = Object.fromEntries(LOBES.map((lobe) => [lobe, [] as AnyOperation[]])) as Record<Lobe, AnyOperation[]>
  for (const op of operations) out[op.lobe].push(op)
  return out
}
