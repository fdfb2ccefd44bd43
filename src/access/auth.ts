// Credentials: the admin token or a stored grant, parsed from `Authorization: Bearer …` and compared in constant time.
// Who may do what with them is the access policy's (policy.ts), never decided here.
import type { Config } from '../config.js'
import type { Sql } from '../store/sql.js'
import { Refusal } from '../http/refusal.js'
import { grantRepository } from './grants.js'
import { SCOPES, hashToken, secretsEqual, type Scope } from './tokens.js'

// Kept importable from here too: most callers think of them as part of authentication.
export { SCOPES, hashToken, secretsEqual, type Scope }

export interface Credential {
  kind: 'admin' | 'grant'
  subject: string
  scopes: readonly Scope[]
  grantId?: string
}

export interface Authenticator {
  /**
   * Reads the credential of a request; rejects with `unauthorized` for a bearer that is wrong, expired or revoked.
   * A grant is read from the database on every request (one statement, no cache): a revocation holds on every replica
   * from the next request on.
   */
  identify(authorization: string | undefined, now: number): Promise<Credential | null>
  /** No ADMIN_TOKEN configured: the host is open (development mode); what that allows is the policy's (policy.ts). */
  readonly open: boolean
}

export function createAuthenticator(config: Pick<Config, 'adminToken'>, sql: Sql): Authenticator {
  const adminToken = config.adminToken
  const grants = grantRepository(sql)
  return {
    open: adminToken === null,
    async identify(authorization, now) {
      if (!authorization) return null
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
      if (!match) throw new Refusal('unauthorized', 'the Authorization header must be "Bearer <token>"')
      const token = match[1]!
      if (adminToken !== null && secretsEqual(token, adminToken)) {
        return { kind: 'admin', subject: 'admin', scopes: SCOPES }
      }
      // Lookup by hash: the index compares digests, never the secret itself.
      const row = await grants.byTokenHash(hashToken(token))
      if (!row) throw new Refusal('unauthorized', 'the bearer token is not known to this host')
      if (row.revoked_at) throw new Refusal('unauthorized', `grant ${row.id} was revoked at ${row.revoked_at}`)
      if (Date.parse(row.expires_at) <= now) throw new Refusal('unauthorized', `grant ${row.id} expired at ${row.expires_at}`)
      await grants.touch(row.id, now)
      return { kind: 'grant', subject: row.subject, scopes: row.scopes, grantId: row.id }
    },
  }
}
