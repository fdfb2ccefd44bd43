// Response entries shared by every trading route: errors are RFC 9457 problems.
import { problemNotFound } from '../../plugins/problem.js'
import { problemSchema } from '../schemas.js'

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: problemSchema } } })

export const problemResponses = {
  '4xx': problem('RFC 9457 problem: invalid input (with `errors`), unknown dataset or choice (with `valid_choices`), over a limit, conflict, rate limit'),
  '5xx': problem('RFC 9457 problem: occupied or timed out (with Retry-After), or an internal error (detail = request id)'),
}

/** Under a trading version prefix a 404 names the platform and points at its inventory of routes. */
export const tradingNotFound = problemNotFound('on the trading platform', '/api/v11/system/inventory')
