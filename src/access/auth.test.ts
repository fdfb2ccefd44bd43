// identify's cost and freshness: one statement per request with a grant (the last-use write at most once per
// GRANT_USE_RESOLUTION_MS), none for the admin token, and a revocation seen on the very next request.
import { describe, expect, it } from 'vitest'
import { openStore } from '../store/index.js'
import type { Sql } from '../store/sql.js'
import { createAuthenticator } from './auth.js'
import { GRANT_USE_RESOLUTION_MS, grantRepository } from './grants.js'

const ADMIN = 'admin-token-for-tests-0123456789'
const T0 = Date.parse('2026-01-01T00:00:00Z')

/** The store's Sql, counting the statements that pass through it. */
function counted(sql: Sql): Sql & { statements: string[] } {
  const statements: string[] = []
  return {
    dialect: sql.dialect,
    statements,
    all: (text, params) => (statements.push(text), sql.all(text, params)),
    values: (text, params) => (statements.push(text), sql.values(text, params)),
    get: (text, params) => (statements.push(text), sql.get(text, params)),
    run: (text, params) => (statements.push(text), sql.run(text, params)),
    transaction: (fn) => sql.transaction(fn),
  }
}

describe('identify', () => {
  it('reads a grant with one statement per request, writes its last use at most once per resolution, sees a revocation at once', async () => {
    const { sql } = await openStore({ path: ':memory:' })
    const { token, grant } = await grantRepository(sql).issue('ci', ['pin:write'], 3600, T0)
    const watched = counted(sql)
    const auth = createAuthenticator({ adminToken: ADMIN }, watched)

    expect(await auth.identify(`Bearer ${token}`, T0 + 1)).toMatchObject({ kind: 'grant', grantId: grant.id })
    expect(watched.statements).toHaveLength(2)
    expect(watched.statements[1]).toMatch(/^UPDATE grants SET last_used_at/)
    for (let i = 2; i < 12; i++) await auth.identify(`Bearer ${token}`, T0 + i * 1000)
    expect(watched.statements).toHaveLength(12)
    await auth.identify(`Bearer ${token}`, T0 + 1 + GRANT_USE_RESOLUTION_MS)
    expect(watched.statements).toHaveLength(14)

    watched.statements.length = 0
    expect(await auth.identify(`Bearer ${ADMIN}`, T0)).toMatchObject({ kind: 'admin' })
    expect(await auth.identify(undefined, T0)).toBeNull()
    expect(watched.statements).toHaveLength(0)

    await grantRepository(sql).revoke(grant.id, T0 + 5)
    await expect(auth.identify(`Bearer ${token}`, T0 + 6)).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/revoked/) })
  })
})
