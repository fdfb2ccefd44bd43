// The grants table: bearer tokens issued by the admin. Only a token's SHA-256 is stored; the token is returned once.
import { randomBytes, randomUUID } from 'node:crypto'
import { keysetPages } from '../store/keyset.js'
import { perDatabase } from '../store/repository.js'
import type { Sql } from '../store/sql.js'
import { hashToken, type Scope } from './tokens.js'

export interface GrantRecord {
  id: string
  subject: string
  scopes: Scope[]
  created_at: string
  expires_at: string
  revoked_at: string | null
}

/** A grant as an admin listing shows it: never the token, never its hash. */
export interface GrantListing extends GrantRecord {
  last_used_at: string | null
}

/** A grant's last use is written at most once per this interval (a write per authenticated request would be waste). */
export const GRANT_USE_RESOLUTION_MS = 60_000

export interface IssuedGrant {
  grant: GrantRecord
  /** The bearer token: 32 random bytes, base64url. Never stored, never shown again. */
  token: string
}

export interface GrantRepository {
  issue(subject: string, scopes: readonly Scope[], ttlS: number, now: number): Promise<IssuedGrant>
  /** Marks a grant revoked (once); null when the id is unknown. */
  revoke(id: string, now: number): Promise<{ grant: GrantRecord; alreadyRevoked: boolean } | null>
  get(id: string): Promise<GrantRecord | null>
  /** The grant a bearer token stands for, looked up by the token's SHA-256 (never the secret itself). One statement, no cache. */
  byTokenHash(tokenHash: string): Promise<GrantRecord | null>
  /** Active = neither revoked nor expired at `now`. */
  counts(now: number): Promise<{ total: number; active: number }>
  /** Newest first by (created_at, id): up to limit + 1 grants after a keyset position. */
  page(after: readonly (string | number)[] | null, limit: number): Promise<GrantListing[]>
  /** Records that a grant authenticated a request at `now` (to GRANT_USE_RESOLUTION_MS: most calls write nothing). */
  touch(id: string, now: number): Promise<void>
}

interface GrantRow {
  id: string
  subject: string
  scopes: string
  created_at: string
  expires_at: string
  revoked_at: string | null
}

const toRecord = <R extends GrantRow>(row: R): Omit<R, 'scopes'> & { scopes: Scope[] } => ({ ...row, scopes: JSON.parse(row.scopes) as Scope[] })

const GRANT_COLUMNS = 'id, subject, scopes, created_at, expires_at, revoked_at'

/** One repository per database. */
export const grantRepository = perDatabase(createGrantRepository)

function createGrantRepository(sql: Sql): GrantRepository {
  const listed = keysetPages<GrantRow & { last_used_at: string | null }>(sql, {
    select: `SELECT ${GRANT_COLUMNS}, last_used_at FROM grants`,
    key: ['created_at', 'id'],
    order: 'desc',
  })
  const one = async (text: string, params: unknown[]): Promise<GrantRecord | null> => {
    const row = await sql.get<GrantRow>(text, params)
    return row ? toRecord(row) : null
  }
  // Per process: how often this replica writes a grant's last use, not whether a grant is valid (that is read every time).
  const lastWritten = new Map<string, number>()

  return {
    async issue(subject, scopes, ttlS, now) {
      const token = randomBytes(32).toString('base64url')
      const grant: GrantRecord = {
        id: randomUUID(),
        subject,
        scopes: [...scopes],
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + ttlS * 1000).toISOString(),
        revoked_at: null,
      }
      await sql.run(
        'INSERT INTO grants (id, subject, scopes, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
        [grant.id, subject, JSON.stringify(grant.scopes), hashToken(token), grant.created_at, grant.expires_at],
      )
      return { grant, token }
    },
    async revoke(id, now) {
      // A revocation is never undone, so the UPDATE that wins answers the row, and a loser reads the revoked one.
      const revoked = await one(
        `UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING ${GRANT_COLUMNS}`,
        [new Date(now).toISOString(), id],
      )
      if (revoked) return { grant: revoked, alreadyRevoked: false }
      const grant = await one(`SELECT ${GRANT_COLUMNS} FROM grants WHERE id = ?`, [id])
      return grant ? { grant, alreadyRevoked: true } : null
    },
    get: (id) => one(`SELECT ${GRANT_COLUMNS} FROM grants WHERE id = ?`, [id]),
    byTokenHash: (tokenHash) => one(`SELECT ${GRANT_COLUMNS} FROM grants WHERE token_hash = ?`, [tokenHash]),
    async counts(now) {
      const row = await sql.get<{ total: number | string; active: number | string }>(
        `SELECT count(*) AS total, count(CASE WHEN revoked_at IS NULL AND expires_at > ? THEN 1 END) AS active FROM grants`,
        [new Date(now).toISOString()],
      )
      return { total: Number(row?.total ?? 0), active: Number(row?.active ?? 0) }
    },
    page: async (after, limit) => (await listed({}, after, limit)).map(toRecord),
    async touch(id, now) {
      const last = lastWritten.get(id)
      if (last !== undefined && now - last < GRANT_USE_RESOLUTION_MS && now >= last) return
      lastWritten.set(id, now)
      await sql.run('UPDATE grants SET last_used_at = ? WHERE id = ?', [new Date(now).toISOString(), id])
    },
  }
}
