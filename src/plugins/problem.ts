// RFC 9457 problem details: outside /api/v1 (which envelopes) every error of the host becomes one application/problem+json body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { Refusal, type RefusalCode } from '../http/refusal.js'
import { bodyLimitOf, toRefusal } from './error-refusal.js'
import { redactUrl, shortUrl } from '../http/redact.js'
import { wrongMethod } from './route-table.js'

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
function platformProblemOf(err: PlatformProblem, instance: string): Problem {
  const problem: Problem = { type: problemType(err.code), title: err.title, status: err.status, detail: err.message, instance, code: err.code }
  for (const [key, value] of Object.entries(err.members)) if (!(key in problem)) problem[key] = value
  return problem
}

/** Sends a built problem: its Retry-After header when it has one, and the body exactly as built. */
function send(reply: FastifyReply, problem: Problem): FastifyReply {
  if (typeof problem.retry_after_s === 'number' && !reply.hasHeader('retry-after')) {
    reply.header('retry-after', String(Math.ceil(problem.retry_after_s)))
  }
  // A string payload skips every response serializer.
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem))
}

export function sendProblem(reply: FastifyReply, refusal: Refusal, instance: string): FastifyReply {
  if (refusal.code === 'unauthorized') reply.header('www-authenticate', 'Bearer')
  return send(reply, problemOf(refusal, instance))
}

export function problemErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  if ((err as FastifyError | null)?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    err = new PlatformProblem(415, 'unsupported_media_type', 'Unsupported media type',
      `content type ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted here; send application/json (or text/csv to POST /api/v11/datasets)`)
  }
  if (err instanceof PlatformProblem) return send(reply, platformProblemOf(err, redactUrl(req.url)))
  const refusal = toRefusal(err, req.id, bodyLimitOf(req))
  if (refusal.code === 'internal') req.log.error({ err, method: req.method, url: redactUrl(req.url) }, 'internal error')
  else if (!req.server.unmatchedLog.isSuppressed(req)) req.log.info({ refusal: refusal.code, reason: refusal.message }, 'refused')
  return sendProblem(reply, refusal, redactUrl(req.url))
}

/** A not-found handler that names where the client looked and where that place lists its routes. */
export function problemNotFound(where: string, see: string) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    const wrong = wrongMethod(req, reply)
    if (wrong) return sendProblem(reply, wrong, shortUrl(req.url))
    const refusal = new Refusal('not_found', `no route ${req.method} ${shortUrl(req.url.split('?')[0]!)} ${where}`, { hints: { see } })
    return sendProblem(reply, refusal, shortUrl(req.url))
  }
}

/** Host-wide: outside any surface's prefix, a 404 names the host and points at the whole OpenAPI document. */
export const problemNotFoundHandler = problemNotFound('on this host', '/docs')

/** Installs the problem renderer on an (encapsulated) instance. */
export function useProblems(app: FastifyInstance, { notFound }: { notFound: boolean }) {
  app.setErrorHandler(problemErrorHandler)
  if (notFound) app.setNotFoundHandler(problemNotFoundHandler)
}
