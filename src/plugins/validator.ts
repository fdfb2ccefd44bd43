// Request validation from zod schemas (fastify-type-provider-zod), with two rules of our own: query strings, and
// bodies kept as bytes for the mill.
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BodyBlocks } from '../body-parse/formats.js'

/**
 * Unknown query parameters are ignored, not refused: `/api/v1/health?x=1` is a health probe with a cache-buster, and
 * proxies and dashboards add parameters of their own. Known parameters are still checked; bodies stay strict.
 */
export const lenientQueryValidatorCompiler: typeof validatorCompiler = (route) => {
  if (route.httpPart === 'body') return bodyValidator(validatorCompiler(route))
  return validatorCompiler(route.httpPart === 'querystring' && route.schema instanceof z.ZodObject ? { ...route, schema: route.schema.strip() } : route)
}

/**
 * A large body kept as its bytes (BodyBlocks: an operation that reads its input in the mill) is validated there, with
 * the same schema and the same refusal (http/validation.ts); here it passes as it is.
 */
const bodyValidator = (validate: ReturnType<typeof validatorCompiler>): ReturnType<typeof validatorCompiler> =>
  (data) => (data instanceof BodyBlocks ? { value: data } : validate(data))
