import { describe, expect, it } from 'vitest'
import { countTokens, encodeText, tokenBudget, type BudgetInput } from './budget.js'

// Known encodings published by tiktoken ports' test suites (the same ids Python tiktoken gives).
const GOLDEN = {
  cl100k_base: [
    ['hello world', [15339, 1917]],
    [' 日本語とEnglish 12345!\n', [76502, 22656, 45918, 252, 19732, 23392, 220, 4513, 1774, 4999]],
    ['a\n\n', [64, 271]],
    ['<|endoftext|>', [27, 91, 8862, 728, 428, 91, 29]],
    ['!hello1234567', [0, 15339, 4513, 10961, 22]],
    ['', []],
  ],
  o200k_base: [
    ['hello world', [24912, 2375]],
    [' 日本語とEnglish 12345!\n', [17428, 40909, 5330, 28881, 220, 7633, 2548, 4175]],
    ['a\n\n', [64, 279]],
    ['<|endoftext|>', [27, 91, 419, 1440, 919, 91, 29]],
  ],
} as const

describe('BPE token counts', () => {
  it.each(GOLDEN.cl100k_base.map(([t, ids]) => [t, ids] as const))('cl100k_base %j', (text, ids) => {
    expect(encodeText('cl100k_base', text)).toEqual(ids)
  })
  it.each(GOLDEN.o200k_base.map(([t, ids]) => [t, ids] as const))('o200k_base %j', (text, ids) => {
    expect(encodeText('o200k_base', text)).toEqual(ids)
  })
})

const base = (over: Partial<BudgetInput>): BudgetInput => ({
  encoding: 'cl100k_base',
  framing: 'openai_chat',
  contextWindow: 1000,
  reserveOutput: 100,
  messages: [],
  allowCut: true,
  keep: 'tail',
  ...over,
})

describe('token budget', () => {
  it('frames chat messages as the OpenAI cookbook counts them', () => {
    const r = tokenBudget(base({ messages: [{ role: 'user', content: 'hello world' }] }))
    // 3 per message + "user" (1 token) + 2 content tokens, + 3 reply priming.
    expect(r.per_message[0]).toMatchObject({ content_tokens: 2, framing_tokens: 4, tokens: 6 })
    expect(r.prompt_tokens).toBe(9)
    expect(r.remaining).toBe(900 - 9)
    expect(r.plan.needed).toBe(false)
  })

  it('counts a name with one extra token', () => {
    const r = tokenBudget(base({ messages: [{ role: 'user', name: 'bob', content: 'hi' }] }))
    expect(r.per_message[0]!.framing_tokens).toBe(3 + 1 + 1 + countTokens('cl100k_base', 'bob'))
  })

  it('drops the oldest non-system messages and cuts the one that crosses, keeping the system prompt', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ')
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: words(200) },
      { role: 'assistant', content: words(200) },
      { role: 'user', content: words(60) },
    ]
    const r = tokenBudget(base({ messages, contextWindow: 700, reserveOutput: 200 }))
    expect(r.fits).toBe(false)
    expect(r.overflow).toBe(r.prompt_tokens - 500)
    expect(r.plan.actions[0]).toMatchObject({ index: 1, action: 'drop' })
    expect(r.plan.actions.every((a) => a.index !== 0)).toBe(true)
    expect(r.plan.fits_after).toBe(true)
    expect(r.plan.prompt_tokens_after).toBeLessThanOrEqual(500)
    expect(r.plan.actions.map((a) => [a.index, a.action])).toEqual([[1, 'drop'], [2, 'cut']])
    const cut = r.plan.actions[1]!
    // The kept text is the end of the original and its count was measured, not estimated.
    expect(messages[2]!.content.endsWith(cut.kept_content!)).toBe(true)
    expect(cut.kept_content!.length).toBeGreaterThan(0)
    expect(cut.tokens_after).toBe(r.per_message[2]!.framing_tokens + countTokens('cl100k_base', cut.kept_content!))
    const after =
      r.per_message.filter((m) => !r.plan.actions.some((a) => a.index === m.index)).reduce((s, m) => s + m.tokens, 0) +
      r.plan.actions.reduce((s, a) => s + a.tokens_after, 0) +
      r.reply_priming_tokens
    expect(after).toBe(r.plan.prompt_tokens_after)
  })

  it('cuts inside a message without splitting characters', () => {
    const content = '日本語のテキストです。'.repeat(50)
    const r = tokenBudget(base({ messages: [{ role: 'user', content }], contextWindow: 60, reserveOutput: 10 }))
    const cut = r.plan.actions[0]!
    expect(cut.action).toBe('cut')
    expect(content.endsWith(cut.kept_content!)).toBe(true)
    expect(cut.kept_content).not.toContain('\uFFFD')
    expect(r.plan.prompt_tokens_after).toBeLessThanOrEqual(50)
  })

  it('drops whole messages when cutting is not allowed, and says when the system prompt alone is too long', () => {
    const r = tokenBudget(
      base({
        allowCut: false,
        contextWindow: 30,
        reserveOutput: 0,
        messages: [
          { role: 'system', content: 'rule '.repeat(40) },
          { role: 'user', content: 'question' },
        ],
      }),
    )
    expect(r.plan.actions).toEqual([{ index: 1, action: 'drop', tokens_before: r.per_message[1]!.tokens, tokens_after: 0 }])
    expect(r.plan.fits_after).toBe(false)
    expect(r.plan.reason).toMatch(/system/)
  })

  it('counts plain texts without framing', () => {
    const r = tokenBudget(base({ framing: 'none', messages: [{ role: 'user', content: 'hello world' }] }))
    expect(r.prompt_tokens).toBe(2)
  })
})
