// A tool's answer as MCP content. The SDK writes a whole JSON-RPC message with one JSON.stringify and sends it as one
// string, so an answer is inlined only up to MCP_INLINE_ANSWER_CHARS of JSON text: a 15 MB pin read back (its text
// twice, content and structuredContent) held the loop ~250 ms, a backtest with a 250k-bar equity curve ~170 ms. A
// larger answer is linked: where to read it whole over HTTP (a job's result URL, or the tool's route, which writes
// its answer a part per loop turn), with its short top-level members inline and the long ones named with their size.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { jsonWeight } from '../engines/diff/json-patch.js'
import { jsonParts, TURN_TEXT_CHARS } from '../json/json-writer.js'
import { JsonBytes } from '../json/bytes.js'
import { inTurns } from '../sched/turns.js'
import { PLAIN, renderData } from '../render/render.js'
import { answerMembers } from './answer-members.js'

/** The most characters of JSON text an answer is inlined with (content and structuredContent each). */
export const MCP_INLINE_ANSWER_CHARS = 256 * 1024
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

/**
 * The answer's text in parts when it may be over the inline size: a written answer's bytes decoded a part per turn, a
 * value over the size (counted by a walk that stops there) written a part per turn; null when the value is small
 * enough to inline as it is.
 */
async function largeText(data: unknown): Promise<string[] | null> {
  const parts: string[] = []
  if (data instanceof JsonBytes) {
    for await (const part of inTurns(data.texts())) parts.push(part)
    return parts
  }
  if (jsonWeight(data, MCP_INLINE_ANSWER_CHARS) <= MCP_INLINE_ANSWER_CHARS) return null
  for await (const part of jsonParts(data, TURN_TEXT_CHARS)) parts.push(part)
  return parts
}

const charsOf = (parts: readonly string[]): number => parts.reduce((n, part) => n + part.length, 0)

/** The tool's CallToolResult: the answer inline when small, else linked. */
export async function toolAnswer(
  data: unknown, link: AnswerLink, render: (data: unknown) => string, meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  const written = await largeText(data)
  const chars = written === null ? 0 : charsOf(written)
  const extra = meta ? { _meta: meta } : {}
  if (written === null || chars <= MCP_INLINE_ANSWER_CHARS) {
    const value = written === null ? data : JSON.parse(written.join(''))
    return { content: [{ type: 'text', text: render(value) }], structuredContent: asObject(value), ...extra }
  }
  const members = await answerMembers(written, { memberChars: KEPT_MEMBER_CHARS, keptChars: KEPT_CHARS, listed: LISTED_OMITTED })
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
