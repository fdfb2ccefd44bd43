// RFC 9457 problem details, the answer of every error outside /api/v1 (where the envelope answers instead): the body,
// its schema and content type, and a refusal or a surface's own problem put as one. plugins/problem.ts sends them.
import { z } from 'zod'
import type { Refusal, RefusalCode } from './refusal.js'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  instance: z.string(),
  code: z.string(),
}).loose().describe('RFC 9457 problem details (application/problem+json)')

const problem = (description: string) => ({ description, content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } } })

/** The error responses every route outside /api/v1 documents: RFC 9457 problems. */
export const problemResponses = {
  '4xx': problem('RFC 9457 problem: invalid input (with `errors`), unknown dataset or choice (with `valid_choices`), over a limit, conflict, rate limit'),
  '5xx': problem('RFC 9457 problem: occupied or timed out (with Retry-After), or an internal error (detail = request id)'),
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  instance: string
  code: string
  [member: string]: unknown
}

/** A problem of this surface that the host-wide refusal vocabulary has no code for (e.g. no healthy RPC endpoint). */
export class PlatformProblem extends Error {
  override name = 'PlatformProblem'
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly members: Record<string, unknown> = {},
  ) {
    super(detail)
  }
}

const TITLES: Record<RefusalCode, string> = {
  invalid_input: 'Invalid input',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  request_timeout: 'Request timeout',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  headers_too_large: 'Request header fields too large',
  over_limit: 'Over a declared limit',
  rate_limited: 'Too many requests',
  internal: 'Internal error',
  token_completion_unavailable: 'Not implemented',
  timeout: 'Timed out',
  occupied: 'Service occupied',
}

/** Problem type URIs: URNs, absolute and stable, naming the refusal code they stand for. */
export const problemType = (code: string): string => `urn:ncm-hub:problem:${code.replaceAll('_', '-')}`

export function problemOf(refusal: Refusal, instance: string): Problem {
  const problem: Problem = {
    type: problemType(refusal.code),
    title: TITLES[refusal.code],
    status: refusal.statusCode,
    detail: refusal.message,
    instance,
    code: refusal.code,
  }
  const { issues, hints, retryAfterS } = refusal.options
  if (issues) problem.errors = issues
  if (retryAfterS !== undefined) problem.retry_after_s = Math.ceil(retryAfterS)
  // Hints become extension members (valid_choices, limit, …); they never overwrite the standard ones.
  if (hints) for (const [key, value] of Object.entries(hints)) if (!(key in problem)) problem[key] = value
  return problem
}

/** The problem of a surface-specific error, with its extension members (never over the standard ones). */
export function platformProblemOf(err: PlatformProblem, instance: string): Problem {
  const problem: Problem = { type: problemType(err.code), title: err.title, status: err.status, detail: err.message, instance, code: err.code }
  for (const [key, value] of Object.entries(err.members)) if (!(key in problem)) problem[key] = value
  return problem
}
