// A job may run longer than a request: `timeout_ms` up to JOB_MAX_MS with Prefer: respond-async, while the synchronous
// path keeps the mill's 60 s cap. Operations keep one schema, whose cap (and so the OpenAPI document) is the sync one;
// heavy routes keep a failed validation on the request (attachValidation) and this module judges it by path.
import type { FastifyRequest } from 'fastify'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { Refusal } from '../http/refusal.js'
import { prefersAsync } from './view.js'

/** Route option of heavy routes: validation errors are attached to the request, then judged by inputForPath. */
export const JUDGE_BY_PATH = { attachValidation: true } as const

/** The note heavy routes add to their description: the schema shows the sync cap, a job may ask for more. */
export const jobBudgetNote = (schema: z.ZodType, jobMaxMs: number): string =>
  jobSchemaOf(schema)
    ? ` With Prefer: respond-async, \`timeout_ms\` may go up to JOB_MAX_MS (${jobMaxMs} ms here); the schema shows the synchronous cap.`
    : ''

const jobSchemas = new WeakMap<z.ZodType, z.ZodType | null>()

/** The operation's schema with `timeout_ms` uncapped (JOB_MAX_MS is checked after it, as over_limit); null without one. */
function jobSchemaOf(schema: z.ZodType): z.ZodType | null {
  let raised = jobSchemas.get(schema)
  if (raised === undefined) {
    raised = schema instanceof z.ZodObject && 'timeout_ms' in schema.shape
      ? schema.safeExtend({ timeout_ms: z.number().int().min(1).optional() })
      : null
    jobSchemas.set(schema, raised)
  }
  return raised
}

/**
 * The validated input of a heavy route. Sync calls (and async ones that pass) answer Fastify's own verdict; an async
 * submission is validated again with `timeout_ms` allowed up to JOB_MAX_MS, and refused `over_limit` beyond it.
 */
export function inputForPath<T>(req: FastifyRequest, schema: z.ZodType, jobMaxMs: number): T {
  const failed = req.validationError
  if (!failed) return req.body as T
  const raised = prefersAsync(req) ? jobSchemaOf(schema) : null
  if (!raised) throw failed
  const verdict = validatorCompiler({ schema: raised, method: req.method, url: req.url, httpPart: 'body' })(req.body) as
    { error?: unknown; value?: T & { timeout_ms?: number } }
  if (verdict.error) {
    // Shaped as Fastify's own validation error, so both surfaces refuse it as they refuse any invalid body.
    throw Object.assign(new Error('the body is invalid'), { statusCode: 400, code: 'FST_ERR_VALIDATION', validation: verdict.error, validationContext: 'body' })
  }
  const input = verdict.value!
  if (input.timeout_ms !== undefined && input.timeout_ms > jobMaxMs) {
    throw new Refusal('over_limit', `timeout_ms ${input.timeout_ms} is over JOB_MAX_MS, the longest a job may run (${jobMaxMs} ms)`, {
      issues: [{ path: 'timeout_ms', message: `at most ${jobMaxMs} (JOB_MAX_MS) for a job` }],
      hints: { limit: { name: 'JOB_MAX_MS', value: jobMaxMs, requested: input.timeout_ms } },
    })
  }
  return input
}
