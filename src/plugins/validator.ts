// Request validation from zod schemas (fastify-type-provider-zod), with one rule of our own for query strings.
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'

/**
 * Unknown query parameters are ignored, not refused: `/api/v1/health?x=1` is a health probe with a cache-buster, and
 * proxies and dashboards add parameters of their own. Known parameters are still checked; bodies stay strict.
 */
export const lenientQueryValidatorCompiler: typeof validatorCompiler = (route) =>
  validatorCompiler(route.httpPart === 'querystring' && route.schema instanceof z.ZodObject ? { ...route, schema: route.schema.strip() } : route)
