// Token budget of a context window with a real BPE tokenizer (js-tiktoken's bundled ranks), and a truncation plan.
import { createRequire } from 'node:module'
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite'
import type { BudgetInput, BudgetMessage, BudgetResult, EncodingName, KeepSide, MessageCount, TruncationAction } from './budget-spec.js'

export * from './budget-spec.js'

// The rank tables are 1 MB and 2.3 MB of source each: loaded on the first count that needs them, not at start, so a
// process (or mill worker) that never counts tokens never holds them. The CommonJS build loads synchronously.
const require = createRequire(import.meta.url)
const RANKS: Record<EncodingName, () => TiktokenBPE> = {
  cl100k_base: () => require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE,
  o200k_base: () => require('js-tiktoken/ranks/o200k_base') as TiktokenBPE,
}
const built = new Map<EncodingName, Tiktoken>()

/** Building an encoder parses its whole rank table (hundreds of ms), so each is built once, on first use. */
export function encoder(name: EncodingName): Tiktoken {
  let enc = built.get(name)
  if (!enc) {
    enc = new Tiktoken(RANKS[name]())
    built.set(name, enc)
  }
  return enc
}

/** Special-token text such as "<|endoftext|>" in user content is counted as ordinary text, as an API would see it. */
export const encodeText = (name: EncodingName, text: string): number[] => encoder(name).encode(text, [], [])

export const countTokens = (name: EncodingName, text: string): number => encodeText(name, text).length

const TOKENS_PER_MESSAGE = 3
const TOKENS_PER_NAME = 1
const REPLY_PRIMING = 3

/** Messages the plan never drops or cuts. */
export const isProtected = (m: BudgetMessage) => m.role === 'system'

function framingTokens(input: BudgetInput, m: BudgetMessage): number {
  if (input.framing === 'none') return 0
  let n = TOKENS_PER_MESSAGE + countTokens(input.encoding, m.role)
  if (m.name !== undefined) n += TOKENS_PER_NAME + countTokens(input.encoding, m.name)
  return n
}

/**
 * The longest end (or start) of `content` whose token count is at most `limit`, measured by re-encoding the kept text.
 * Cut at a token boundary of the whole text, then moved inward while the piece is not an exact substring (a token
 * split a character) or re-encodes to more tokens than allowed.
 */
function cutContent(name: EncodingName, content: string, limit: number, keep: KeepSide): string {
  if (limit <= 0) return ''
  const tokens = encodeText(name, content)
  const enc = encoder(name)
  let take = Math.min(limit, tokens.length)
  for (let guard = 0; take > 0 && guard < 64; guard++) {
    const piece = enc.decode(keep === 'tail' ? tokens.slice(tokens.length - take) : tokens.slice(0, take))
    const exact = keep === 'tail' ? content.endsWith(piece) : content.startsWith(piece)
    if (exact) {
      const count = countTokens(name, piece)
      if (count <= limit) return piece
      take -= Math.max(1, count - limit)
    } else take--
  }
  return ''
}

/** `onProgress` (optional) hears the UTF-16 characters counted so far after each message, of the total. */
export function tokenBudget(input: BudgetInput, onProgress?: (done: number, total: number) => void): BudgetResult {
  const totalChars = onProgress ? input.messages.reduce((n, m) => n + m.content.length, 0) : 0
  let doneChars = 0
  const perMessage: MessageCount[] = input.messages.map((m, index) => {
    const content = countTokens(input.encoding, m.content)
    if (onProgress) onProgress((doneChars += m.content.length), totalChars)
    const framing = framingTokens(input, m)
    return { index, role: m.role, content_tokens: content, framing_tokens: framing, tokens: content + framing, protected: isProtected(m) }
  })
  const priming = input.framing === 'openai_chat' && input.messages.length > 0 ? REPLY_PRIMING : 0
  const prompt = perMessage.reduce((s, m) => s + m.tokens, 0) + priming
  const available = input.contextWindow - input.reserveOutput
  const overflow = Math.max(0, prompt - available)

  const actions: TruncationAction[] = []
  const dropped = new Set<number>()
  let total = prompt
  for (const m of perMessage) {
    if (total <= available) break
    if (m.protected) continue
    const excess = total - available
    const cutTarget = m.content_tokens - excess
    if (input.allowCut && excess < m.tokens && cutTarget > 0) {
      const kept = cutContent(input.encoding, input.messages[m.index]!.content, cutTarget, input.keep)
      const after = m.framing_tokens + countTokens(input.encoding, kept)
      actions.push({
        index: m.index,
        action: 'cut',
        tokens_before: m.tokens,
        tokens_after: after,
        kept_content: kept,
        kept_characters: kept.length,
      })
      total += after - m.tokens
    } else {
      actions.push({ index: m.index, action: 'drop', tokens_before: m.tokens, tokens_after: 0 })
      dropped.add(m.index)
      total -= m.tokens
    }
  }
  // With every message dropped the reply priming goes too.
  if (priming > 0 && dropped.size === perMessage.length) total -= priming
  const fitsAfter = total <= available
  return {
    per_message: perMessage,
    reply_priming_tokens: priming,
    prompt_tokens: prompt,
    available_for_prompt: available,
    fits: overflow === 0,
    remaining: Math.max(0, available - prompt),
    overflow,
    plan: {
      needed: overflow > 0,
      actions,
      kept_indexes: perMessage.filter((m) => !dropped.has(m.index)).map((m) => m.index),
      prompt_tokens_after: total,
      fits_after: fitsAfter,
      reason: fitsAfter
        ? null
        : 'the protected (system) messages alone exceed the tokens available for the prompt; shorten them or reserve fewer output tokens',
    },
  }
}
