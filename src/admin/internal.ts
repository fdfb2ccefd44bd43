// In-process requests of the admin surface (smoke checks, the page's own reads): marked with a per-process secret.
// The secret is drawn at module load, never logged or sent over a socket, so an outside client cannot forge the header.
import { randomBytes } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { secretsEqual } from '../access/auth.js'

const SECRET = randomBytes(32).toString('hex')

export const INTERNAL_HEADER = 'x-ncm-internal'
/** With a valid internal header: "this request is a smoke check — answer without running the smoke checks". */
export const SMOKE_HEADER = 'x-ncm-smoke'

export function internalHeaders(options: { smoke: boolean }): Record<string, string> {
  return options.smoke ? { [INTERNAL_HEADER]: SECRET, [SMOKE_HEADER]: '1' } : { [INTERNAL_HEADER]: SECRET }
}

export function isInternal(req: FastifyRequest): boolean {
  const value = req.headers[INTERNAL_HEADER]
  return typeof value === 'string' && secretsEqual(value, SECRET)
}

export const isSmokeRequest = (req: FastifyRequest): boolean => isInternal(req) && req.headers[SMOKE_HEADER] === '1'
