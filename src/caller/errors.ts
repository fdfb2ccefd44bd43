// The caller error handler: every error under /api/v1 becomes one refusal envelope (SPEC §1.2).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { Refusal, type RefusalIssue } from '../refusal.js'
import { RefusalPayload } from './envelope.js'
import type { CallerCounters } from './counters.js'

/** Maps anything thrown under /api/v1 onto a Refusal. */
export function toRefusal(err: unknown, requestId: string): Refusal {
  if (err instanceof Refusal) return err
  const e = err as FastifyError & { retryAfterS?: number }
  if (hasZodFastifySchemaValidationErrors(e)) {
    const where = e.validationContext ?? 'input'
    const issues: RefusalIssue[] = e.validation!.map((v) => ({
      path: v.instancePath && v.instancePath !== '/' ? v.instancePath.slice(1).replaceAll('/', '.') : '(root)',
      message: v.message ?? 'invalid',
    }))
    return new Refusal('invalid_input', `the ${where} does not match the operation's schema`, { issues })
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Refusal('payload_too_large', 'the body is over the limit of this route')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Refusal('invalid_input', `unsupported content type; send application/json`)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Refusal('invalid_input', 'the body is empty but the content type says JSON')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Refusal('invalid_input', 'the body is not valid JSON')
  }
  if (e.statusCode === 429) {
    return new Refusal('rate_limited', e.message, { retryAfterS: e.retryAfterS ?? 60 })
  }
  if (e.statusCode === 413) return new Refusal('payload_too_large', 'the body is over the limit of this route')
  if (err instanceof SyntaxError || (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)) {
    return new Refusal('invalid_input', e.message)
  }
  return new Refusal('internal', `internal error; request id ${requestId}`)
}

export function createCallerErrorHandler(counters: CallerCounters) {
  return function callerErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
    const refusal = toRefusal(err, req.id)
    counters.refused(refusal.code)
    if (refusal.code === 'internal') {
      req.log.error({ err, method: req.method, url: req.url }, 'internal error')
    } else {
      req.log.info({ refusal: refusal.code, reason: refusal.message }, 'refused')
    }
    if (refusal.options.retryAfterS !== undefined) reply.header('retry-after', String(Math.ceil(refusal.options.retryAfterS)))
    return reply.code(refusal.statusCode).send(new RefusalPayload(refusal.toBody()))
  }
}
