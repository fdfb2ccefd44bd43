// RFC 9457 problem details for the trading surface: every error becomes one application/problem+json body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors, ResponseSerializationError } from 'fastify-type-provider-zod'
import { Refusal, type RefusalCode } from '../refusal.js'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

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
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  over_limit: 'Over a declared limit',
  rate_limited: 'Too many requests',
  internal: 'Internal error',
  token_completion_unavailable: 'Not implemented',
  timeout: 'Timed out',
  occupied: 'Service occupied',
}

/** Problem type URIs: URNs, absolute and stable, naming the refusal code they stand for. */
export const problemType = (code: string): string => `urn:ncm-hub:problem:${code.replaceAll('_', '-')}`

/** Maps anything thrown on the trading surface onto a Refusal (the one error vocabulary of the host). */
export function refusalOf(err: unknown, requestId: string): Refusal {
  if (err instanceof Refusal) return err
  const e = err as FastifyError & { retryAfterS?: number; ttl?: number }
  if (hasZodFastifySchemaValidationErrors(e)) {
    const where = e.validationContext ?? 'body'
    const issues = e.validation.map((v) => ({
      path: v.instancePath && v.instancePath !== '/' ? v.instancePath.slice(1).replaceAll('/', '.') : '(root)',
      message: v.message ?? 'invalid',
    }))
    const first = issues[0]
    const summary = first ? `${first.path}: ${first.message}` : 'does not match the schema'
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''
    // An enum field that got an unknown value: name the valid choices as a member of their own.
    const choices = e.validation.map((v) => (v.params as { values?: unknown })?.values).find(Array.isArray)
    return new Refusal('invalid_input', `the ${where} is invalid: ${summary}${more}`, {
      issues,
      ...(choices ? { hints: { valid_choices: choices } } : {}),
    })
  }
  if (err instanceof ResponseSerializationError) return new Refusal('internal', `internal error; request id ${requestId}`)
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Refusal('payload_too_large', 'the body is over the limit of this route')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Refusal('invalid_input', 'the body is empty but the content type says JSON')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Refusal('invalid_input', 'the body is not valid JSON')
  }
  if (e.statusCode === 429) {
    const retryAfterS = e.retryAfterS ?? (e.ttl ? Math.ceil(e.ttl / 1000) : 60)
    return new Refusal('rate_limited', e.message, { retryAfterS })
  }
  if (e.statusCode === 413) return new Refusal('payload_too_large', 'the body is over the limit of this route')
  if (e instanceof SyntaxError || (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)) {
    return new Refusal('invalid_input', e.message)
  }
  return new Refusal('internal', `internal error; request id ${requestId}`)
}

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

export function sendProblem(reply: FastifyReply, refusal: Refusal, instance: string): FastifyReply {
  const problem = problemOf(refusal, instance)
  if (problem.retry_after_s !== undefined && !reply.hasHeader('retry-after')) {
    reply.header('retry-after', String(problem.retry_after_s))
  }
  if (refusal.code === 'unauthorized') reply.header('www-authenticate', 'Bearer')
  // A string payload skips every response serializer: the problem is sent exactly as built.
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem))
}

export function problemErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  if ((err as FastifyError | null)?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    err = new PlatformProblem(415, 'unsupported_media_type', 'Unsupported media type',
      `content type ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted here; send application/json (or text/csv to POST /api/v11/datasets)`)
  }
  if (err instanceof PlatformProblem) {
    const problem: Problem = {
      type: problemType(err.code), title: err.title, status: err.status, detail: err.message, instance: req.url, code: err.code,
    }
    for (const [key, value] of Object.entries(err.members)) if (!(key in problem)) problem[key] = value
    if (typeof problem.retry_after_s === 'number') reply.header('retry-after', String(Math.ceil(problem.retry_after_s)))
    return reply.code(err.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem))
  }
  const refusal = refusalOf(err, req.id)
  if (refusal.code === 'internal') req.log.error({ err, method: req.method, url: req.url }, 'internal error')
  else req.log.info({ refusal: refusal.code, reason: refusal.message }, 'refused')
  return sendProblem(reply, refusal, req.url)
}

export function problemNotFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  const refusal = new Refusal('not_found', `no route ${req.method} ${req.url.split('?')[0]} on the trading platform`, {
    hints: { see: '/api/v11/system/inventory' },
  })
  return sendProblem(reply, refusal, req.url)
}

/** Installs the problem renderer on an (encapsulated) instance. */
export function useProblems(app: FastifyInstance, { notFound }: { notFound: boolean }) {
  app.setErrorHandler(problemErrorHandler)
  if (notFound) app.setNotFoundHandler(problemNotFoundHandler)
}
