// The caller error handler: every error under /api/v1 becomes one refusal envelope (SPEC §1.2).
import type { FastifyReply, FastifyRequest } from 'fastify'
import { bodyLimitOf, toRefusal } from '../plugins/error-refusal.js'
import { RefusalPayload } from '../http/envelope.js'
import type { CallerCounters } from './counters.js'
import { redactUrl } from '../http/redact.js'

export function createCallerErrorHandler(counters: CallerCounters) {
  return function callerErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
    const refusal = toRefusal(err, req.id, bodyLimitOf(req))
    counters.refused(refusal.code)
    if (refusal.code === 'internal') {
      req.log.error({ err, method: req.method, url: redactUrl(req.url) }, 'internal error')
    } else if (!req.server.unmatchedLog.isSuppressed(req)) {
      req.log.info({ refusal: refusal.code, reason: refusal.message }, 'refused')
    }
    if (refusal.options.retryAfterS !== undefined) reply.header('retry-after', String(Math.ceil(refusal.options.retryAfterS)))
    return reply.code(refusal.statusCode).send(new RefusalPayload(refusal.toBody()))
  }
}
