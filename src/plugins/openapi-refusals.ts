// Refusals as documented responses: every operation of the host document lists, status by status, the refusal codes
// the host can answer it with, each a shared response (components.responses) holding the surface's error shape — the
// caller's refusal envelope under /api/v1, an RFC 9457 problem elsewhere. The explorer then shows a refusal as a
// documented answer rather than "Undocumented".
import type { RouteOptions } from 'fastify'
import { REFUSAL_STATUS, type RefusalCode } from '../http/refusal.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Refusal codes this route gives beyond those its shape implies (see refusalCodesOf): a scope, a lookup, a nature. */
    refusals?: readonly RefusalCode[]
  }
}

type Family = 'envelope' | 'problem'
type JsonObject = Record<string, unknown>
interface Operation {
  parameters?: Array<{ in?: string }>
  requestBody?: unknown
  responses?: Record<string, JsonObject>
}
interface Document {
  paths?: Record<string, Record<string, Operation>>
  components?: JsonObject & { schemas?: JsonObject; responses?: JsonObject }
}

const FAMILY_MEDIA: Record<Family, string> = { envelope: 'application/json', problem: 'application/problem+json' }
const FAMILY_SCHEMA: Record<Family, string> = { envelope: 'RefusalEnvelope', problem: 'Problem' }
const FAMILY_PREFIX: Record<Family, string> = { envelope: 'Refusal', problem: 'Problem' }
const FAMILY_NOTE: Record<Family, string> = {
  envelope: 'The envelope\'s `refuse` names the code, the reason and what to change.',
  problem: 'An RFC 9457 problem: `code` names it, `detail` says why.',
}

const WHAT: Record<RefusalCode, string> = {
  invalid_input: 'the input does not match its schema (each field named in the issues)',
  unauthorized: 'no valid bearer credential where one is needed, or an unknown, revoked or expired one',
  forbidden: 'the credential lacks the scope this needs',
  not_found: 'what the input names does not exist',
  method_not_allowed: 'another method answers this path',
  conflict: 'the input contradicts stored state (an Idempotency-Key reused with another body, a pin that changed)',
  payload_too_large: 'the body is over the route\'s limit (BODY_LIMIT_BYTES or LARGE_BODY_LIMIT_BYTES)',
  headers_too_large: 'the request headers are too large',
  request_timeout: 'the body did not arrive within SLOW_CLIENT_MS',
  over_limit: 'the input is over a declared limit (the hints name it and its value)',
  rate_limited: 'over RATE_LIMIT_PER_MIN (Retry-After says when to come back)',
  internal: 'an internal error (the request id is in the answer and the log)',
  token_completion_unavailable: 'refused by nature: no language model runs here',
  timeout: 'the work ran past its time budget',
  occupied: 'the host is shedding load or draining (Retry-After says when to come back)',
}

/** Refusals any route may give: an internal error, a full host, a rate limit. */
const EVERY_ROUTE: readonly RefusalCode[] = ['rate_limited', 'internal', 'occupied']
/** A job's route: over a limit at submission, past its budget, or an Idempotency-Key reused with another body. */
const JOB_ROUTE: readonly RefusalCode[] = ['over_limit', 'timeout', 'conflict']

/** The refusal codes of one operation: what its shape implies (input, body, path parameters, a job) plus its own. */
export function refusalCodesOf(family: Family, operation: Operation, route: Pick<RouteOptions, 'config'> | undefined): Set<RefusalCode> {
  const codes = new Set<RefusalCode>(EVERY_ROUTE)
  const parameters = operation.parameters ?? []
  if (operation.requestBody || parameters.length) codes.add('invalid_input')
  if (operation.requestBody) codes.add('payload_too_large')
  if (parameters.some((p) => p.in === 'path')) codes.add('not_found')
  if (operation.responses?.['202']) for (const code of JOB_ROUTE) codes.add(code)
  // The caller surface identifies any bearer it is sent: a bad one is refused on every operation.
  if (family === 'envelope') codes.add('unauthorized')
  for (const code of route?.config?.refusals ?? []) codes.add(code)
  return codes
}

/** Routes by the method and path the document shows them under (`:id` → `{id}`). */
export function routeKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`
}

/**
 * Rewrites the document in place: the range responses (4XX, 5XX) and one response per refusal status become
 * references to shared responses, whose schema is the surface's error shape taken from the routes' own declarations.
 */
export function documentRefusals(doc: Document, routeOf: (key: string) => Pick<RouteOptions, 'config'> | undefined): void {
  const components = (doc.components ??= {})
  const schemas = (components.schemas ??= {})
  const responses = (components.responses ??= {})
  const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })))

  // The error shapes, as the routes declared them (the same conversion as every other schema of the document).
  for (const { operation } of operations) {
    for (const range of ['4XX', '5XX']) {
      const content = operation.responses?.[range]?.content as Record<string, { schema?: unknown }> | undefined
      for (const family of ['envelope', 'problem'] as const) {
        const schema = content?.[FAMILY_MEDIA[family]]?.schema
        if (schema && !schemas[FAMILY_SCHEMA[family]]) schemas[FAMILY_SCHEMA[family]] = schema
      }
    }
  }

  for (const { path, method, operation } of operations) {
    const family = familyOf(path, operation)
    if (!schemas[FAMILY_SCHEMA[family]]) continue
    const opResponses = (operation.responses ??= {})
    const codes = refusalCodesOf(family, operation, routeOf(routeKey(method, path)))
    for (const [status, statusCodes] of byStatus(codes)) {
      // a status the route declares itself (a health answer's 503) keeps its own description and schema
      if (opResponses[status]) continue
      const name = `${FAMILY_PREFIX[family]}${status}${statusCodes.join('_')}`
      responses[name] ??= sharedResponse(family, statusCodes)
      opResponses[status] = { $ref: `#/components/responses/${name}` }
    }
    for (const range of ['4XX', '5XX']) {
      if (!opResponses[range]) continue
      const name = `${FAMILY_PREFIX[family]}${range}`
      responses[name] ??= {
        description: `Any other refusal of this range. ${FAMILY_NOTE[family]}`,
        content: { [FAMILY_MEDIA[family]]: { schema: { $ref: `#/components/schemas/${FAMILY_SCHEMA[family]}` } } },
      }
      opResponses[range] = { $ref: `#/components/responses/${name}` }
    }
  }
}

function familyOf(path: string, operation: Operation): Family {
  const declared = Object.values(operation.responses ?? {}).flatMap((r) => Object.keys((r.content as JsonObject | undefined) ?? {}))
  if (declared.includes(FAMILY_MEDIA.problem)) return 'problem'
  return path === '/api/v1' || path.startsWith('/api/v1/') ? 'envelope' : 'problem'
}

/** The codes grouped by HTTP status, in the vocabulary's order. */
function byStatus(codes: ReadonlySet<RefusalCode>): Array<[string, RefusalCode[]]> {
  const groups = new Map<string, RefusalCode[]>()
  for (const [code, status] of Object.entries(REFUSAL_STATUS) as Array<[RefusalCode, number]>) {
    if (!codes.has(code)) continue
    const key = String(status)
    groups.set(key, [...(groups.get(key) ?? []), code])
  }
  return [...groups.entries()].sort(([a], [b]) => Number(a) - Number(b))
}

function sharedResponse(family: Family, codes: readonly RefusalCode[]): JsonObject {
  const described = codes.map((code) => `\`${code}\`: ${WHAT[code]}`).join('; ')
  return {
    description: `Refused — ${described}. ${FAMILY_NOTE[family]}`,
    content: { [FAMILY_MEDIA[family]]: { schema: { $ref: `#/components/schemas/${FAMILY_SCHEMA[family]}` } } },
  }
}
