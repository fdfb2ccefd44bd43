// In-process requests of the host itself (smoke checks, self-tests, the /admin page's own reads): made with app.inject
// and marked with a per-process secret. They pass the admin credential check and are exempt from the rate limit.
// Two conditions, so neither alone can be forged: the secret is drawn at module load and never logged or sent over a
// socket; and a request that arrived on a real socket (net.Socket, TLS included) is never internal, whatever it carries.
import { randomBytes } from 'node:crypto'
import { Socket } from 'node:net'
import type { FastifyRequest } from 'fastify'
import { secretsEqual } from './tokens.js'

const SECRET = randomBytes(32).toString('hex')

export const INTERNAL_HEADER = 'x-ncm-internal'
/** With a valid internal header: "this request is a smoke check — answer without running the smoke checks". */
export const SMOKE_HEADER = 'x-ncm-smoke'

export function internalHeaders(options: { smoke: boolean }): Record<string, string> {
  return options.smoke ? { [INTERNAL_HEADER]: SECRET, [SMOKE_HEADER]: '1' } : { [INTERNAL_HEADER]: SECRET }
}

export function isInternal(req: FastifyRequest): boolean {
  const value = req.headers[INTERNAL_HEADER]
  return typeof value === 'string' && !(req.raw.socket instanceof Socket) && secretsEqual(value, SECRET)
}

export const isSmokeRequest = (req: FastifyRequest): boolean => isInternal(req) && req.headers[SMOKE_HEADER] === '1'
