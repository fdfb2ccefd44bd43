// Response entries shared by every trading route: errors are RFC 9457 problems.
import type { FastifyRequest } from 'fastify'
import { problemNotFound } from '../../plugins/problem.js'
import type { Scope } from '../../access/tokens.js'
import type { TradingContext } from '../context.js'
import { problemSchema } from '../schemas.js'

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: problemSchema } } })

export const problemResponses = {
  '4xx': problem('RFC 9457 problem: invalid input (with `errors`), unknown dataset or choice (with `valid_choices`), over a limit, conflict, rate limit'),
  '5xx': problem('RFC 9457 problem: occupied or timed out (with Retry-After), or an internal error (detail = request id)'),
}

/** Under a trading version prefix a 404 names the platform and points at its inventory of routes. */
export const tradingNotFound = problemNotFound('on the trading platform', '/api/v11/system/inventory')

/**
 * An onRequest hook refusing (401/403, naming the scope) unless the credential carries `scope`; with no ADMIN_TOKEN the
 * host is open. onRequest, so the refusal comes before a body of up to LARGE_BODY_LIMIT_BYTES is read.
 */
export function requireScope({ auth, clock }: Pick<TradingContext, 'auth' | 'clock'>, scope: Scope, op: string) {
  return async (req: FastifyRequest) => {
    auth.require(await auth.identify(req.headers.authorization, clock.now()), scope, op)
  }
}
