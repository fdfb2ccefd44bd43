// The refusal of an input that does not match its route's schema, made the same wherever the schema ran: on the loop
// (Fastify's validation error, plugins/error-refusal.ts) or in the mill (an operation that reads its body there).
import { describeIssue, Refusal, type IssueParts, type RefusalIssue } from './refusal.js'

/** One failed check as fastify-type-provider-zod reports it (the zod issue's parts beside its code, path and message). */
export interface ValidationFailure {
  keyword: string
  instancePath: string
  message?: string
  params?: unknown
}

/** `where` is the part of the request that was checked (body, querystring, params). */
export function validationRefusal(validation: readonly ValidationFailure[], where: string): Refusal {
  const issues: RefusalIssue[] = validation.flatMap((v) => describeIssue({
    ...(v.params as Partial<IssueParts>),
    code: v.keyword,
    path: v.instancePath.split('/').filter(Boolean).map((k) => (/^\d+$/.test(k) ? Number(k) : k)),
    message: v.message ?? 'invalid',
  }, '', where === 'querystring' ? 'query' : where))
  const first = issues[0]
  const summary = first ? `${first.path}: ${first.message}` : 'does not match the schema'
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''
  // An enum field that got an unknown value: name the valid choices as a hint of their own.
  const choices = validation.map((v) => (v.params as { values?: unknown } | undefined)?.values).find(Array.isArray)
  return new Refusal('invalid_input', `the ${where} is invalid: ${summary}${more}`, {
    issues,
    ...(choices ? { hints: { valid_choices: choices } } : {}),
  })
}
