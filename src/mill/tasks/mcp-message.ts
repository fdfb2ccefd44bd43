// A large /mcp message read in the mill (issue #30 item 1): parsed under the host's caps as any body, then, for a
// tools/call whose arguments the loop may not hold as a value (too many values, or nested past what crosses by
// structured clone), the arguments are taken out and handed back as their JSON's bytes, for the tool to read as its
// route reads a large body (mcp/server.ts). What remains must fit what a body parsed on the loop may hold.
import { joined, parseBody, textOf, type BodyOutcome, type JsonFormat } from '../../body-parse/formats.js'
import { jsonDepth } from '../../engines/digest/canonical-json.js'
import { jsonBytesDeep, stringifyDeep } from '../../json/json-writer.js'
import { LOOP_BODY_MAX_VALUES, valuesUpTo } from '../../json/loop-rule.js'
import { moving } from '../moving.js'
import type { TaskTable } from '../types.js'
import { CLONE_MAX_DEPTH } from './body.js'

export interface McpMessagePayload {
  blocks: Uint8Array[]
  format: JsonFormat
}

/** The message as a body's outcome, and a tools/call's arguments when they were taken out of it. */
export interface McpMessage {
  outcome: BodyOutcome
  toolArguments?: Uint8Array
}

/** The params of a single tools/call whose arguments are an object (the only arguments a tool takes), or null. */
function toolCallParams(message: unknown): { arguments: Record<string, unknown> } | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null
  const { method, params } = message as { method?: unknown; params?: unknown }
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return null
  const args = (params as { arguments?: unknown }).arguments
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? params as { arguments: Record<string, unknown> } : null
}

export function mcpMessageFromBody({ blocks, format }: McpMessagePayload): McpMessage {
  const bytes = joined(blocks)
  const outcome = parseBody(bytes, format)
  if (!outcome.ok || !('value' in outcome)) return { outcome }
  const message = outcome.value
  const deep = outcome.depth! > CLONE_MAX_DEPTH
  const params = toolCallParams(message)
  const fits = () => valuesUpTo(message, LOOP_BODY_MAX_VALUES) !== null
  let fitsTheLoop = fits()
  let toolArguments: Uint8Array | undefined
  if (params && (deep || !fitsTheLoop)) {
    // Written without recursion: arguments may nest JSON_MAX_DEPTH deep.
    toolArguments = jsonBytesDeep(params.arguments)
    params.arguments = {}
    fitsTheLoop = fits()
  }
  if (!fitsTheLoop) {
    const reason = `a JSON-RPC message may hold at most ${LOOP_BODY_MAX_VALUES} values besides one tools/call's arguments ` +
      '(send large calls one at a time)'
    return { outcome: { ok: false, refusal: { code: 'over_limit', reason, options: { hints: { limit: 'LOOP_BODY_MAX_VALUES', value: LOOP_BODY_MAX_VALUES } } } } }
  }
  // The receiving side's deserializer recurses (tasks/body.ts): what remains too deep crosses as its text.
  if (!toolArguments) return { outcome: deep ? { ok: true, json: textOf(bytes) } : outcome }
  const crossing: BodyOutcome = jsonDepth(message, CLONE_MAX_DEPTH + 1) > CLONE_MAX_DEPTH ? { ok: true, json: stringifyDeep(message) } : { ok: true, value: message }
  return moving({ outcome: crossing, toolArguments }, [toolArguments.buffer as ArrayBuffer])
}

export const mcpMessageTasks = {
  'mcp.message': mcpMessageFromBody,
} satisfies TaskTable
