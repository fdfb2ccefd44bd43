// RFC 9457 problem details: outside /api/v1 (which envelopes) every error of the host becomes one application/problem+json body
// (its vocabulary: http/problem.ts), sent here by the error handler and the not-found handlers.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Refusal } from '../http/refusal.js'
import { PlatformProblem, PROBLEM_CONTENT_TYPE, platformProblemOf, problemOf, type Problem } from '../http/problem.js'
import { bodyLimitOf, toRefusal } from './error-refusal.js'
import { redactUrl, shortUrl } from '../http/redact.js'
import { wrongMethod } from './route-table.js'

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
