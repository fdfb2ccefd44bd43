// A tool's answer as MCP content. The SDK writes a whole JSON-RPC message with one JSON.stringify on the loop, so an
// answer is inlined only within the loop's limit (LOOP_VALUE_MAX_BYTES of JSON): a 15 MB pin read back held the loop
// ~250 ms, a backtest with a 250k-bar equity curve ~170 ms. A larger answer is read in the mill from its bytes and
// linked: where to read it whole over HTTP (a job's result URL, or the tool's route), with its short top-level members
// inline and the long ones named with their size.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { jsonWeight } from '../engines/diff/json-patch.js'
import { JsonBytes } from '../json/bytes.js'
import { LOOP_VALUE_MAX_BYTES, tripLoopRule } from '../json/loop-rule.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { movedCopies } from '../mill/moving.js'
import type { LargeAnswer } from '../mill/tasks/mcp-answer.js'
import { PLAIN, renderData } from '../render/render.js'

/** The most characters of JSON text an answer is inlined with (content and structuredContent each): the loop's limit. */
export const MCP_INLINE_ANSWER_CHARS = LOOP_VALUE_MAX_BYTES
/** A linked answer keeps its top-level members of at most this many characters, up to KEPT_CHARS in all. */
export const KEPT_MEMBER_CHARS = 4 * 1024
export const KEPT_CHARS = 32 * 1024
/** Members a linked answer names as left out; past these it counts them. */
export const LISTED_OMITTED = 100

/** Where the whole answer is read over HTTP. */
export interface AnswerLink {
  /** A job's result (GET), absolute; null for a tool that is not a job. */
  resultUrl: string | null
  /** The tool's own route ("POST https://host/api/v1/pin"): the same arguments as its body answer the same data. */
  route: string
}

/** structuredContent must be a JSON object; any other value is wrapped. */
const asObject = (data: unknown): Record<string, unknown> =>
  data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : { value: data }

/** Where an answer over the inline size is read, and whose share of the mill that reading counts in. */
export interface AnswerReading {
  mill: Pick<Mill, 'run'>
  owner: string | null
  /** LOOP_TRIPWIRE=throw: a tool that hands over an answer over the inline size as a value fails (it must be bytes). */
  tripwire: boolean
  tool: string
}

/** An answer over the inline size read in the mill: its bytes copied there (they may be a job's, held by others too). */
async function readLarge(bytes: readonly Uint8Array[], reading: AnswerReading): Promise<LargeAnswer> {
  const { views, transfer } = await movedCopies(bytes)
  return reading.mill.run('mcp.largeAnswer', {
    blocks: views,
    inlineChars: MCP_INLINE_ANSWER_CHARS,
    limits: { memberChars: KEPT_MEMBER_CHARS, keptChars: KEPT_CHARS, listed: LISTED_OMITTED },
  }, { timeoutMs: budgetOf(undefined), op: reading.tool, owner: reading.owner, transfer })
}

/**
 * The answer as a value to inline, or as the mill read it when over the inline size: written answers by their byte
 * count (never fewer than their characters), values by a walk that stops at the size.
 */
async function measured(data: unknown, reading: AnswerReading): Promise<{ value: unknown } | LargeAnswer> {
  if (data instanceof JsonBytes) {
    if (data.byteLength <= MCP_INLINE_ANSWER_CHARS) return { value: data.value() }
    return readLarge(data.chunks, reading)
  }
  if (jsonWeight(data, MCP_INLINE_ANSWER_CHARS) <= MCP_INLINE_ANSWER_CHARS) return { value: data }
  if (reading.tripwire) tripLoopRule(`MCP tool ${reading.tool} answered a value over ${MCP_INLINE_ANSWER_CHARS} characters of JSON on the event loop: write it in the mill`)
  return readLarge([Buffer.from(JSON.stringify(data))], reading)
}

/** The tool's CallToolResult: the answer inline when small, else linked. */
export async function toolAnswer(
  data: unknown, link: AnswerLink, render: (data: unknown) => string, reading: AnswerReading, meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  const answer = await measured(data, reading)
  const extra = meta ? { _meta: meta } : {}
  if ('value' in answer || 'inline' in answer) {
    const value = 'value' in answer ? answer.value : answer.inline
    return { content: [{ type: 'text', text: render(value) }], structuredContent: asObject(value), ...extra }
  }
  const { chars, members } = answer
  const read = link.resultUrl ? `GET ${link.resultUrl}` : `${link.route} with the same arguments`
  const structured = {
    inlined: false,
    answer_chars: chars,
    max_inline_chars: MCP_INLINE_ANSWER_CHARS,
    result_url: link.resultUrl,
    route: link.route,
    answer: members.kept,
    omitted: members.omitted,
    omitted_more: members.omittedMore,
  }
  const left = members.omitted.map((m) => `${m.member || '(the whole answer)'} (${m.chars} characters)`).join(', ')
  const text = `The answer is ${chars} characters of JSON, over the ${MCP_INLINE_ANSWER_CHARS} an MCP answer inlines. ` +
    `Read it whole with ${read}. Left out here: ${left}${members.omittedMore ? ` and ${members.omittedMore} more members` : ''}.` +
    (Object.keys(members.kept).length > 0 ? `\n\n${renderData(members.kept, PLAIN)}` : '')
  return { content: [{ type: 'text', text }], structuredContent: structured, ...extra }
}
