// Projections of operations shared by listings, docs and the CLI: JSON Schema of inputs, curl lines, grouping.
import { z } from 'zod'
import { CALLER_PREFIX } from './index.js'
import { LOBES, type AnyOperation, type Lobe } from './operation.js'

/** JSON Schema (draft 2020-12) of an operation's input, as agents and MCP clients read it. */
export function inputJsonSchema(op: AnyOperation): Record<string, unknown> {
  const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  delete schema.$schema
  return schema
}

export function outputJsonSchema(op: AnyOperation): Record<string, unknown> {
  const schema = z.toJSONSchema(op.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>
  delete schema.$schema
  return schema
}

export const fullPath = (op: AnyOperation): string => CALLER_PREFIX + (op.path === '/' ? '/' : op.path)

/** A runnable curl line for the first example, against a server on the default address. */
export function curlLine(op: AnyOperation, base = 'http://127.0.0.1:8000'): string {
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
