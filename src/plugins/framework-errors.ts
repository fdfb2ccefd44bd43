// Requests Fastify refuses before routing (malformed percent-encoding, over-long parameters) skip every hook: they are
// answered here in the surface's own format, with the security headers and request id, and counted by the limiter.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Refusal } from '../http/refusal.js'
import { toRefusal } from './error-refusal.js'
import { envelope, RefusalPayload } from '../http/envelope.js'
import { sendProblem } from './problem.js'
import { setSecurityHeaders } from './limits.js'
import { CALLER_PREFIX } from '../http/envelope.js'
import { shortUrl } from '../http/redact.js'

/** Whether a request path (with its query) is the caller API's, answered with envelopes. */
export const isCallerUrl = (url: string) => url === CALLER_PREFIX || url.startsWith(CALLER_PREFIX + '/') || url.startsWith(CALLER_PREFIX + '?')

/** A refusal the caller plugin never saw, counted with the caller's refusals and framed as its envelope (JSON text). */
export function callerRefusalText(server: FastifyInstance, refusal: Refusal): string {
  server.callerCounters.refused(refusal.code)
  return JSON.stringify(envelope(new RefusalPayload(refusal.toBody()), server.admission.state()))
}

function refusalOf(err: FastifyError): Refusal {
  if (err.code === 'FST_ERR_BAD_URL') {
    return new Refusal('invalid_input', 'the URL is malformed: a percent sign must be followed by two hexadecimal digits of valid UTF-8')
  }
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return new Refusal('invalid_input', 'a path parameter of this URL is too long')
  return toRefusal(err, '')
}

/** Fastify's `frameworkErrors` option. */
export async function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  setSecurityHeaders(req, reply)
  let refusal = refusalOf(err)
  try {
    await req.server.limitRequest?.(req, reply)
  } catch (limited) {
    refusal = toRefusal(limited, req.id)
  }
  req.log.info({ refusal: refusal.code, url: shortUrl(req.url) }, 'refused before routing')
  if (refusal.options.retryAfterS !== undefined) reply.header('retry-after', String(Math.ceil(refusal.options.retryAfterS)))
  if (!isCallerUrl(req.url)) return sendProblem(reply, refusal, shortUrl(req.url))
  return reply.code(refusal.statusCode).type('application/json; charset=utf-8').send(callerRefusalText(req.server, refusal))
}
