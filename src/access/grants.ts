// The grants table: bearer tokens issued by the admin. Only a token's SHA-256 is stored; the token is returned once.
import { randomBytes, randomUUID } from 'node:crypto'
import type { Db } from '../store/index.js'
import { perDatabase } from '../store/repository.js'
import { keysetQuery } from '../store/keyset.js'
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
  issue(subject: string, scopes: readonly Scope[], ttlS: number, now: number): IssuedGrant
  /** Marks a grant revoked (once); null when the id is unknown. */
  revoke(id: string, now: number): { grant: GrantRecord; alreadyRevoked: boolean } | null
  get(id: string): GrantRecord | null
  /** The grant a bearer token stands for, looked up by the token's SHA-256 (never the secret itself). */
  byTokenHash(tokenHash: string): GrantRecord | null
  /** Active = neither revoked nor expired at `now`. */
  counts(now: number): { total: number; active: number }
  /** Newest first by (created_at, id): up to limit + 1 grants after a keyset position. */
  page(after: readonly (string | number)[] | null, limit: number): GrantListing[]
  /** Records that a grant authenticated a request at `now` (to GRANT_USE_RESOLUTION_MS). */
  touch(id: string, now: number): void
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

/** One repository per database, its statements prepared once. */
export const grantRepository = perDatabase(createGrantRepository)

function createGrantRepository(db: Db): GrantRepository {
  const insert = db.prepare<[string, string, string, string, string, string]>(
    'INSERT INTO grants (id, subject, scopes, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const byId = db.prepare<[string], GrantRow>(
    'SELECT id, subject, scopes, created_at, expires_at, revoked_at FROM grants WHERE id = ?',
  )
  const byHash = db.prepare<[string], GrantRow>('SELECT id, subject, scopes, created_at, expires_at, revoked_at FROM grants WHERE token_hash = ?')
  const markRevoked = db.prepare<[string, string]>('UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
  const total = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM grants')
  const active = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM grants WHERE revoked_at IS NULL AND expires_at > ?',
  )
  const listed = keysetQuery<GrantRow & { last_used_at: string | null }>(db, {
    select: 'SELECT id, subject, scopes, created_at, expires_at, revoked_at, last_used_at FROM grants',
    key: ['created_at', 'id'],
    order: 'desc',
  })
  const markUsed = db.prepare<[string, string]>('UPDATE grants SET last_used_at = ? WHERE id = ?')
  const lastWritten = new Map<string, number>()

  return {
    issue(subject, scopes, ttlS, now) {
      const token = randomBytes(32).toString('base64url')
      const grant: GrantRecord = {
        id: randomUUID(),
        subject,
        scopes: [...scopes],
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + ttlS * 1000).toISOString(),
        revoked_at: null,
      }
      insert.run(grant.id, subject, JSON.stringify(grant.scopes), hashToken(token), grant.created_at, grant.expires_at)
      return { grant, token }
    },
    revoke(id, now) {
      return db.transaction(() => {
        const changed = markRevoked.run(new Date(now).toISOString(), id).changes === 1
        const row = byId.get(id)
        return row ? { grant: toRecord(row), alreadyRevoked: !changed } : null
      })()
    },
    get(id) {
      const row = byId.get(id)
      return row ? toRecord(row) : null
    },
    byTokenHash(tokenHash) {
      const row = byHash.get(tokenHash)
      return row ? toRecord(row) : null
    },
    counts(now) {
      return { total: total.get()!.n, active: active.get(new Date(now).toISOString())!.n }
    },
    page: (after, limit) => listed({}, after, limit).map(toRecord),
    touch(id, now) {
      const last = lastWritten.get(id)
      if (last !== undefined && now - last < GRANT_USE_RESOLUTION_MS && now >= last) return
      lastWritten.set(id, now)
      markUsed.run(new Date(now).toISOString(), id)
    },
  }
}
