import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json, manualClock } from '../helper.js'
import { hashToken } from '../../src/access/tokens.js'
import { GRANT_LIMITS } from '../../src/caller/ops/access/grant.js'

const ADMIN = 'test-admin-token-0123456789'
// Two hosts for the whole file (building one is slow): one without ADMIN_TOKEN, one with it and a hand-moved clock.
let open: FastifyInstance
let secured: FastifyInstance
let app: FastifyInstance
const clock = manualClock()
beforeAll(async () => {
  ;[open, secured] = await Promise.all([buildTestApp(), buildTestApp({ env: { ADMIN_TOKEN: ADMIN }, clock })])
  app = secured
})
afterAll(async () => Promise.all([open.close(), secured.close()]))

const call = async (url: string, payload: unknown, token?: string) => {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1${url}`,
    payload: payload as object,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  })
  return { status: res.statusCode, body: json(res) }
}
const refusal = async (url: string, payload: unknown, token: string | undefined, code: string) => {
  const { status, body } = await call(url, payload, token)
  expect(body.ok, JSON.stringify(body.data)).toBe(false)
  expect(body.refuse.code).toBe(code)
  expect(status).toBe(body.refuse.http_status)
  return body.refuse as { reason: string; issues?: Array<{ path: string; message: string }> }
}
const grantRows = () => app.store.sql.all<Record<string, unknown>>('SELECT * FROM grants')
const pinCount = async () => Number((await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pins'))!.n)

describe('POST /grant without ADMIN_TOKEN', () => {
  it('refuses and says how to set it, storing nothing', async () => {
    app = open
    const refuse = await refusal('/grant', { subject: 's', scopes: ['pin:write'], ttl_s: 60 }, undefined, 'forbidden')
    expect(refuse.reason).toMatch(/set ADMIN_TOKEN/)
    expect(await grantRows()).toHaveLength(0)
    app = secured
  })
})

describe('POST /grant with ADMIN_TOKEN', () => {
  it('issues a token shown once, storing only its SHA-256', async () => {
    const before = (await grantRows()).length
    const { status, body } = await call('/grant', { subject: 'ci', scopes: ['pin:write', 'pin:write'], ttl_s: 3600 }, ADMIN)
    expect(status).toBe(200)
    const data = body.data
    expect(data).toMatchObject({
      action: 'issued',
      subject: 'ci',
      scopes: ['pin:write'],
      ttl_s: 3600,
      token_type: 'Bearer',
      created_at: new Date(clock.now()).toISOString(),
      expires_at: new Date(clock.now() + 3_600_000).toISOString(),
      revoked_at: null,
    })
    expect(Buffer.from(data.token, 'base64url')).toHaveLength(32)
    const rows = await grantRows()
    expect(rows).toHaveLength(before + 1)
    expect(rows.find((r) => r.id === data.id)!.token_hash).toBe(hashToken(data.token))
    expect(JSON.stringify(rows)).not.toContain(data.token)
  })

  it('needs the admin credential itself: none is unauthorized, a grant is forbidden', async () => {
    await refusal('/grant', { subject: 's', scopes: ['pin:write'], ttl_s: 60 }, undefined, 'unauthorized')
    await refusal('/grant', { subject: 's', scopes: ['pin:write'], ttl_s: 60 }, 'not-a-known-token', 'unauthorized')
    await refusal('/grant', { subject: 's', scopes: ['pin:write'], ttl_s: GRANT_LIMITS.ttlS + 1 }, undefined, 'unauthorized')
    const { body } = await call('/grant', { subject: 'ops', scopes: ['pin:write', 'run:heavy', 'admin:read', 'trading:write'], ttl_s: 60 }, ADMIN)
    const before = (await grantRows()).length
    const refuse = await refusal('/grant', { subject: 'x', scopes: ['pin:write'], ttl_s: 60 }, body.data.token, 'forbidden')
    expect(refuse.reason).toMatch(/only the admin credential/)
    expect(await grantRows()).toHaveLength(before)
  })

  it('lifecycle: a grant works for its scope, not for others, until it expires', async () => {
    const start = clock.now()
    const pinsBefore = await pinCount()
    const writer = (await call('/grant', { subject: 'writer', scopes: ['pin:write'], ttl_s: 600 }, ADMIN)).body.data
    const reader = (await call('/grant', { subject: 'reader', scopes: ['admin:read'], ttl_s: 600 }, ADMIN)).body.data

    const pinned = await call('/pin', { content: 'grant lifecycle: one' }, writer.token)
    expect(pinned.body.data.action).toBe('pinned')
    const lacking = await refusal('/pin', { content: 'grant lifecycle: two' }, reader.token, 'forbidden')
    expect(lacking.reason).toMatch(/lacks scope pin:write/)
    await refusal('/pin', { content: 'grant lifecycle: two' }, undefined, 'unauthorized')

    clock.advance(599_000)
    expect((await call('/pin', { content: 'grant lifecycle: three' }, writer.token)).body.ok).toBe(true)
    clock.advance(1_000)
    const expired = await refusal('/pin', { content: 'grant lifecycle: four' }, writer.token, 'unauthorized')
    expect(expired.reason).toContain(`expired at ${new Date(start + 600_000).toISOString()}`)
    expect(await pinCount()).toBe(pinsBefore + 2)
  })

  it('lifecycle: revoke stops a token at once; revoking twice says so; unknown ids are not found', async () => {
    const issued = (await call('/grant', { subject: 'w', scopes: ['pin:write'], ttl_s: 600 }, ADMIN)).body.data
    expect((await call('/pin', { content: 'revoke: a' }, issued.token)).body.ok).toBe(true)

    const revoked = await call('/grant', { revoke: issued.id }, ADMIN)
    expect(revoked.body.data).toMatchObject({ action: 'revoked', id: issued.id, already_revoked: false, revoked_at: new Date(clock.now()).toISOString() })
    const refuse = await refusal('/pin', { content: 'revoke: b' }, issued.token, 'unauthorized')
    expect(refuse.reason).toMatch(/revoked/)

    expect((await call('/grant', { revoke: issued.id }, ADMIN)).body.data.already_revoked).toBe(true)
    await refusal('/grant', { revoke: 'no-such-grant' }, ADMIN, 'not_found')
    await refusal('/grant', { revoke: issued.id }, issued.token, 'unauthorized')
  })

  it('refuses bad input and stores nothing', async () => {
    const before = (await grantRows()).length
    const bad: unknown[] = [
      {},
      { subject: 's', scopes: ['pin:read'], ttl_s: 60 },
      { subject: 's', scopes: [], ttl_s: 60 },
      { subject: 's', scopes: 'pin:write', ttl_s: 60 },
      { subject: '', scopes: ['pin:write'], ttl_s: 60 },
      { subject: 'a\u0000b', scopes: ['pin:write'], ttl_s: 60 },
      { subject: 's', scopes: ['pin:write'], ttl_s: 0 },
      { subject: 's', scopes: ['pin:write'], ttl_s: 1.5 },
      { subject: 's', scopes: ['pin:write'] },
      { subject: 's', scopes: ['pin:write'], ttl_s: 60, admin: true },
      { revoke: 'x', subject: 's' },
      { revoke: 42 },
    ]
    for (const payload of bad) await refusal('/grant', payload, ADMIN, 'invalid_input')
    const over = await refusal('/grant', { subject: 's', scopes: ['pin:write'], ttl_s: GRANT_LIMITS.ttlS + 1 }, ADMIN, 'over_limit')
    expect(over.reason).toMatch(String(GRANT_LIMITS.ttlS))
    expect(await grantRows()).toHaveLength(before)
  })
})
