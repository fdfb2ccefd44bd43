// The shape of a token budget (encodings, framing, input, result) without the tokenizer, so callers can name it cheaply.

export const ENCODINGS = ['cl100k_base', 'o200k_base'] as const
export type EncodingName = (typeof ENCODINGS)[number]

/** How messages are framed for a chat model. */
export type Framing = 'openai_chat' | 'none'

export const FRAMING_STATEMENTS: Readonly<Record<Framing, string>> = {
  openai_chat:
    'OpenAI chat framing: 3 tokens per message + the tokens of its role (+ 1 + the tokens of its name when named), ' +
    'and 3 tokens priming the reply (<|start|>assistant<|message|>)',
  none: 'no framing: only the tokens of each content are counted',
}

export const FRAMING_SOURCE =
  'openai/openai-cookbook examples/How_to_count_tokens_with_tiktoken.ipynb, num_tokens_from_messages ' +
  '(gpt-3.5-turbo-0613, gpt-4-0613: tokens_per_message = 3, tokens_per_name = 1, reply primed with 3)'

export interface BudgetMessage {
  role: string
  content: string
  name?: string
}

export interface MessageCount {
  index: number
  role: string
  content_tokens: number
  framing_tokens: number
  tokens: number
  protected: boolean
}

export type KeepSide = 'tail' | 'head'

export interface TruncationAction {
  index: number
  action: 'drop' | 'cut'
  tokens_before: number
  tokens_after: number
  /** For a cut: the content kept (its end for keep = tail, its start for keep = head). */
  kept_content?: string
  kept_characters?: number
}

export interface BudgetInput {
  encoding: EncodingName
  framing: Framing
  contextWindow: number
  reserveOutput: number
  messages: readonly BudgetMessage[]
  /** Cut the first message that overflows instead of dropping it whole. */
  allowCut: boolean
  keep: KeepSide
}

export interface BudgetResult {
  per_message: MessageCount[]
  reply_priming_tokens: number
  prompt_tokens: number
  available_for_prompt: number
  fits: boolean
  remaining: number
  overflow: number
  plan: {
    needed: boolean
    actions: TruncationAction[]
    kept_indexes: number[]
    prompt_tokens_after: number
    fits_after: boolean
    /** Why the plan cannot make the prompt fit, or null. */
    reason: string | null
  }
}

