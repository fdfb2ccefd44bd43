// The one mapping from anything thrown while answering a request onto a Refusal; each surface only renders it
// (the caller as an envelope, the trading platform as RFC 9457 problem details).
import type { FastifyError, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors, ResponseSerializationError } from 'fastify-type-provider-zod'
import { Refusal } from '../http/refusal.js'
import { validationRefusal } from '../http/validation.js'
import { storeRefusal } from '../store/faults.js'

/** A route's body limit as a 413 names it: its bytes and the setting they come from. */
export interface BodyLimit {
  bytes: number
  setting: 'BODY_LIMIT_BYTES' | 'LARGE_BODY_LIMIT_BYTES'
}

/** The body limit of the route a request reached (none before routing). */
export function bodyLimitOf(req: FastifyRequest): BodyLimit | undefined {
  const bytes = req.routeOptions?.bodyLimit
  if (bytes === undefined) return undefined
  return { bytes, setting: bytes === req.server.config.largeBodyLimitBytes ? 'LARGE_BODY_LIMIT_BYTES' : 'BODY_LIMIT_BYTES' }
}

function bodyTooLarge(limit: BodyLimit | undefined): Refusal {
  if (!limit) return new Refusal('payload_too_large', 'the body is over the limit of this route')
  return new Refusal('payload_too_large', `the body is over this route's limit of ${limit.bytes} bytes (${limit.setting})`, {
    hints: { limit: limit.setting, value: limit.bytes },
  })
}

export function toRefusal(err: unknown, requestId: string, bodyLimit?: BodyLimit): Refusal {
  if (err instanceof Refusal) return err
  const e = err as FastifyError & { retryAfterS?: number; ttl?: number }
  if (hasZodFastifySchemaValidationErrors(e)) return validationRefusal(e.validation, e.validationContext ?? 'input')
  // Our own response did not match its schema: a bug on our side, never the caller's.
  if (err instanceof ResponseSerializationError) return new Refusal('internal', `internal error; request id ${requestId}`)
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyTooLarge(bodyLimit)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Refusal('invalid_input', 'unsupported content type; send application/json')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Refusal('invalid_input', 'the body is empty but the content type says JSON')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Refusal('invalid_input', 'the body is not valid JSON')
  }
  if (e.statusCode === 429) {
    const retryAfterS = e.retryAfterS ?? (e.ttl ? Math.ceil(e.ttl / 1000) : 60)
    return new Refusal('rate_limited', e.message, { retryAfterS })
  }
  if (e.statusCode === 413) return bodyTooLarge(bodyLimit)
  if (err instanceof SyntaxError || (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)) {
    return new Refusal('invalid_input', e.message)
  }
  // The store's faults are the host's state, not bugs: a client is told to come back (503 + Retry-After), never a 500.
  return storeRefusal(err) ?? new Refusal('internal', `internal error; request id ${requestId}`)
}
