// A job may run longer than a request: `timeout_ms` up to JOB_MAX_MS with Prefer: respond-async, while a synchronous
// call keeps the mill's 60 s cap. Operations keep one schema, whose cap (and so the OpenAPI document) is the sync one;
// an async submission that fails it is judged again with this raised schema, by its route (jobs/budget.ts) or, for a
// large body, by the mill (inputs/stored.ts).
import { z } from 'zod'
import { Refusal } from '../http/refusal.js'

const jobSchemas = new WeakMap<z.ZodType, z.ZodType | null>()

/** The operation's schema with `timeout_ms` uncapped (JOB_MAX_MS is checked after it, as over_limit); null without one. */
export function jobSchemaOf(schema: z.ZodType): z.ZodType | null {
  let raised = jobSchemas.get(schema)
  if (raised === undefined) {
    raised = schema instanceof z.ZodObject && 'timeout_ms' in schema.shape
      ? schema.safeExtend({ timeout_ms: z.number().int().min(1).optional() })
      : null
    jobSchemas.set(schema, raised)
  }
  return raised
}

/** Refuses a job's `timeout_ms` past JOB_MAX_MS, the longest a job may run. */
export function checkJobBudget(input: { timeout_ms?: number | undefined }, jobMaxMs: number): void {
  if (input.timeout_ms !== undefined && input.timeout_ms > jobMaxMs) {
    throw new Refusal('over_limit', `timeout_ms ${input.timeout_ms} is over JOB_MAX_MS, the longest a job may run (${jobMaxMs} ms)`, {
      issues: [{ path: 'timeout_ms', message: `at most ${jobMaxMs} (JOB_MAX_MS) for a job` }],
      hints: { limit: { name: 'JOB_MAX_MS', value: jobMaxMs, requested: input.timeout_ms } },
    })
  }
}
