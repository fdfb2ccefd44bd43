// POST /budget: token budget of a context window, counted with a real BPE tokenizer, with a truncation plan.
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { Refusal } from '../../../http/refusal.js'
import { budgetOf, MAX_TIMEOUT_MS } from '../../../mill/pool.js'
import {
  ENCODINGS, FRAMING_SOURCE, FRAMING_STATEMENTS, type BudgetInput,
} from '../../../engines/capacity/budget-spec.js'

/** Tokenizing runs at about a second per MiB, in the mill; the text one request may carry is bounded. */
export const BUDGET_MAX_CHARACTERS = 524_288
export const BUDGET_MAX_MESSAGES = 4096

const message = z
  .object({
    role: z.string().min(1).max(64),
    content: z.string(),
    name: z.string().min(1).max(64).optional(),
  })
  .strict()

const input = z
  .object({
    encoding: z.enum(ENCODINGS).default('cl100k_base'),
    context_window: z.number().int().min(1).max(100_000_000).describe('Tokens the model accepts in total'),
    reserve_output: z.number().int().min(0).default(0).describe('Tokens kept free for the answer'),
    messages: z.array(message).max(BUDGET_MAX_MESSAGES).optional(),
    texts: z.array(z.string()).max(BUDGET_MAX_MESSAGES).optional().describe('Plain texts instead of chat messages'),
    framing: z.enum(['openai_chat', 'none']).optional().describe('Default openai_chat for messages, none for texts'),
    truncate: z.enum(['cut', 'drop']).default('cut').describe('Cut the message that crosses the limit, or drop it whole'),
    keep: z.enum(['tail', 'head']).default('tail').describe('Which end of a cut message is kept'),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Time budget of the count (default 10 s)'),
  })
  .strict()

const output = z.object({
  encoding: z.enum(ENCODINGS),
  framing: z.enum(['openai_chat', 'none']),
  framing_statement: z.string(),
  context_window: z.number().int(),
  reserve_output: z.number().int(),
  available_for_prompt: z.number().int(),
  per_message: z.array(
    z.object({
      index: z.number().int(),
      role: z.string(),
      content_tokens: z.number().int(),
      framing_tokens: z.number().int(),
      tokens: z.number().int(),
      protected: z.boolean(),
    }),
  ),
  reply_priming_tokens: z.number().int(),
  prompt_tokens: z.number().int(),
  fits: z.boolean(),
  remaining: z.number().int(),
  overflow: z.number().int(),
  plan: z.object({
    needed: z.boolean(),
    actions: z.array(
      z.object({
        index: z.number().int(),
        action: z.enum(['drop', 'cut']),
        tokens_before: z.number().int(),
        tokens_after: z.number().int(),
        kept_content: z.string().optional(),
        kept_characters: z.number().int().optional(),
      }),
    ),
    kept_indexes: z.array(z.number().int()),
    prompt_tokens_after: z.number().int(),
    fits_after: z.boolean(),
    reason: z.string().nullable(),
  }),
})

type Input = z.output<typeof input>

const characters = (i: Input) =>
  (i.messages ?? []).reduce((s, m) => s + m.content.length + m.role.length + (m.name?.length ?? 0), 0) +
  (i.texts ?? []).reduce((s, t) => s + t.length, 0)

export const budget = defineOperation({
  name: 'budget',
  method: 'POST',
  path: '/budget',
  lobe: 'capacity',
  caption: 'Token budget of a context window, with a truncation plan',
  summary:
    'Counts tokens with a real BPE tokenizer (js-tiktoken with its bundled cl100k_base and o200k_base ranks, no network), ' +
    'per message with OpenAI chat framing or per plain text; reserves output tokens; reports what remains or the ' +
    'overflow, and a plan that drops the oldest non-system messages and cuts the one that crosses the limit (its kept ' +
    'part re-counted), never touching the system prompt. Runs in the mill (building an encoder and encoding large texts ' +
    `take seconds); at most ${BUDGET_MAX_CHARACTERS} characters per request.`,
  input,
  output,
  provenance: ['computed'],
  heavy: true,
  sources: [FRAMING_SOURCE, 'js-tiktoken 1.0.21 ranks/cl100k_base, ranks/o200k_base'],
  checkLimits: (i) => {
    const n = characters(i)
    if (n > BUDGET_MAX_CHARACTERS) {
      throw new Refusal('over_limit', `the texts hold ${n} characters, over the limit of ${BUDGET_MAX_CHARACTERS} per request`)
    }
  },
  examples: [
    {
      encoding: 'cl100k_base',
      context_window: 64,
      reserve_output: 16,
      messages: [
        { role: 'system', content: 'You answer in one sentence.' },
        { role: 'user', content: 'Tell me everything about the history of the printing press in Europe, in detail.' },
        { role: 'assistant', content: 'Gutenberg built a movable-type press in Mainz around 1440.' },
        { role: 'user', content: 'And what came after?' },
      ],
    },
    { encoding: 'o200k_base', context_window: 8192, texts: ['hello world'] },
  ],
  handler: async (i, ctx) => {
    if ((i.messages === undefined) === (i.texts === undefined)) {
      throw new Refusal('invalid_input', 'give exactly one of messages and texts', {
        issues: [{ path: i.messages === undefined ? 'messages' : 'texts', message: 'exactly one of messages and texts is required' }],
      })
    }
    if (i.reserve_output >= i.context_window) {
      throw new Refusal('invalid_input', `reserve_output (${i.reserve_output}) leaves no room in a window of ${i.context_window} tokens`, {
        issues: [{ path: 'reserve_output', message: 'must be smaller than context_window' }],
      })
    }
    const framing = i.framing ?? (i.messages ? 'openai_chat' : 'none')
    const messages = i.messages ?? i.texts!.map((content) => ({ role: 'user', content }))
    const payload: BudgetInput = {
      encoding: i.encoding,
      framing,
      contextWindow: i.context_window,
      reserveOutput: i.reserve_output,
      messages,
      allowCut: i.truncate === 'cut',
      keep: i.keep,
    }
    const r = await ctx.mill.run('capacity.token_budget', payload, { timeoutMs: budgetOf(i.timeout_ms), op: 'budget', owner: ctx.principal.owner })
    return {
      encoding: i.encoding,
      framing,
      framing_statement: FRAMING_STATEMENTS[framing],
      context_window: i.context_window,
      reserve_output: i.reserve_output,
      available_for_prompt: r.available_for_prompt,
      per_message: r.per_message,
      reply_priming_tokens: r.reply_priming_tokens,
      prompt_tokens: r.prompt_tokens,
      fits: r.fits,
      remaining: r.remaining,
      overflow: r.overflow,
      plan: r.plan,
    }
  },
})
