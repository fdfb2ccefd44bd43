// A heavy route's input judged by its path (inputs/job-budget.ts): heavy routes keep a failed validation on the request
// (attachValidation), and an async submission is judged again with `timeout_ms` allowed up to JOB_MAX_MS.
import type { FastifyRequest } from 'fastify'
import { validatorCompiler } from 'fastify-type-provider-zod'
import type { z } from 'zod'
import { checkJobBudget, jobSchemaOf } from '../inputs/job-budget.js'
import { prefersAsync } from './view.js'

/** Route option of heavy routes: validation errors are attached to the request, then judged by inputForPath. */
export const JUDGE_BY_PATH = { attachValidation: true } as const

/** The note heavy routes add to their description: the schema shows the sync cap, a job may ask for more. */
export const jobBudgetNote = (schema: z.ZodType, jobMaxMs: number): string =>
  jobSchemaOf(schema)
    ? ` With Prefer: respond-async, \`timeout_ms\` may go up to JOB_MAX_MS (${jobMaxMs} ms here); the schema shows the synchronous cap.`
    : ''

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
  checkJobBudget(input, jobMaxMs)
  return input
}
