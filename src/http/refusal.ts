// The one refusal type of the caller API (SPEC §1.2): thrown by any layer, rendered once by the caller error handler.
import { z } from 'zod'

export const REFUSAL_STATUS = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  over_limit: 422,
  rate_limited: 429,
  internal: 500,
  token_completion_unavailable: 501,
  timeout: 503,
  occupied: 503,
} as const

export type RefusalCode = keyof typeof REFUSAL_STATUS
export const REFUSAL_CODES = Object.keys(REFUSAL_STATUS) as RefusalCode[]

export interface RefusalIssue {
  path: string
  message: string
}

export interface RefusalBody {
  code: RefusalCode
  reason: string
  op?: string
  http_status: number
  retry_after_s?: number
  issues?: RefusalIssue[]
  /** Extra machine-readable hints (closest op names, known presets…). */
  hints?: Record<string, unknown>
}

export const refusalSchema = z.object({
  code: z.enum(REFUSAL_CODES as [RefusalCode, ...RefusalCode[]]),
  reason: z.string(),
  op: z.string().optional(),
  http_status: z.number().int(),
  retry_after_s: z.number().optional(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  hints: z.record(z.string(), z.unknown()).optional(),
})

export interface RefusalOptions {
  op?: string
  retryAfterS?: number
  issues?: RefusalIssue[]
  hints?: Record<string, unknown>
}

export class Refusal extends Error {
  override name = 'Refusal'
  readonly code: RefusalCode
  readonly statusCode: number
  readonly options: RefusalOptions

  constructor(code: RefusalCode, reason: string, options: RefusalOptions = {}) {
    super(reason)
    this.code = code
    this.statusCode = REFUSAL_STATUS[code]
    this.options = options
  }

  /** The same refusal, attributed to an operation (the gate knows the op; the engine does not). */
  forOp(op: string): Refusal {
    return this.options.op ? this : new Refusal(this.code, this.message, { ...this.options, op })
  }

  toBody(): RefusalBody {
    const body: RefusalBody = { code: this.code, reason: this.message, http_status: this.statusCode }
    if (this.options.op !== undefined) body.op = this.options.op
    if (this.options.retryAfterS !== undefined) body.retry_after_s = this.options.retryAfterS
    if (this.options.issues !== undefined) body.issues = this.options.issues
    if (this.options.hints !== undefined) body.hints = this.options.hints
    return body
  }
}

export const isRefusal = (err: unknown): err is Refusal => err instanceof Refusal

/** The parts of a zod issue (or of fastify-type-provider-zod's copy of one) that a message is made from. */
export interface IssueParts {
  code?: string
  path: ReadonlyArray<PropertyKey>
  message: string
  expected?: unknown
  keys?: readonly string[]
  errors?: ReadonlyArray<ReadonlyArray<{ code?: string; message: string; expected?: unknown }>>
}

/**
 * Converts zod issues into the refusal's `issues` list: each names its field (dotted/bracket path; `whole` for the
 * input itself, e.g. `body`) and says what was expected — `dataset: required (string or number)`, `x: unknown field`
 * — never zod's bare "(root): Invalid input".
 */
export function issuesFromZod(error: { issues: readonly IssueParts[] }, prefix = '', whole = 'input'): RefusalIssue[] {
  return error.issues.flatMap((issue) => describeIssue(issue, prefix, whole))
}

export function describeIssue(issue: IssueParts, prefix = '', whole = 'input'): RefusalIssue[] {
  const path = formatPath(prefix, issue.path) || whole
  if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
    return issue.keys.map((key) => ({ path: formatPath(prefix, [...issue.path, key]), message: 'unknown field' }))
  }
  if (issue.code === 'invalid_type') {
    return [{ path, message: missing(issue.message) ? `required (${String(issue.expected)})` : withoutPreamble(issue.message) }]
  }
  if (issue.code === 'invalid_union' && issue.errors?.length) {
    const branches = issue.errors.map((branch) => branch[0]).filter((b) => b !== undefined)
    const expected = [...new Set(branches.map((b) => (b.code === 'invalid_type' ? String(b.expected) : withoutPreamble(b.message))))].join(' or ')
    if (branches.length > 0 && branches.every((b) => missing(b.message))) return [{ path, message: `required (${expected})` }]
    const received = branches.map((b) => /received (\w+)/.exec(b.message)?.[1]).find(Boolean)
    return [{ path, message: `expected ${expected}${received ? `, received ${received}` : ''}` }]
  }
  return [{ path, message: withoutPreamble(issue.message) }]
}

const missing = (message: string) => /received undefined$/.test(message)
const withoutPreamble = (message: string) => message.replace(/^Invalid (?:input|option): /, '')

function formatPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key)
  return out
}
