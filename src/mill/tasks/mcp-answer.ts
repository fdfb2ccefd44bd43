// A tool answer too large for MCP to inline, read in the mill from its bytes: the loop never decodes or scans it. What
// comes back is small: the answer itself when its text turns out to fit (bytes overstate a text's characters), else
// its length and its top-level members as a linked answer keeps them (answer-members.ts).
import { answerMembers, type AnswerMembers, type MemberLimits } from '../../json/answer-members.js'
import type { TaskTable } from '../types.js'

export interface LargeAnswerPayload {
  /** The answer's JSON bytes, in the blocks they moved in. */
  blocks: Uint8Array[]
  /** The most characters of JSON an answer is inlined with. */
  inlineChars: number
  limits: MemberLimits
}

export type LargeAnswer =
  | { chars: number; inline: unknown }
  | { chars: number; members: AnswerMembers }

export const mcpAnswerTasks = {
  'mcp.largeAnswer': ({ blocks, inlineChars, limits }: LargeAnswerPayload): LargeAnswer => {
    const text = Buffer.concat(blocks).toString('utf8')
    if (text.length <= inlineChars) return { chars: text.length, inline: JSON.parse(text) as unknown }
    return { chars: text.length, members: answerMembers([text], limits) }
  },
} satisfies TaskTable
