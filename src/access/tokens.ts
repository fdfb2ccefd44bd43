// Scopes and secret handling shared by the authenticator and the grants repository: tokens are stored only as SHA-256.
import { createHash, timingSafeEqual } from 'node:crypto'

export const SCOPES = ['pin:write', 'run:heavy', 'admin:read', 'trading:write'] as const
export type Scope = (typeof SCOPES)[number]

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex')

/** Constant-time equality of two secrets of any length (hashing first equalises the lengths). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest())
}
