// With ADMIN_TOKEN set, the admin surface needs the admin token or a grant with admin:read; in-process checks pass.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { hashToken } from '../../src/access/tokens.js'
import { INTERNAL_HEADER, SMOKE_HEADER } from '../../src/access/internal.js'

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789'
const JSON_ROUTES = ['/api/v1/admin/truth/summary', '/api/v1/admin/command-post/summary', '/api/v1/admin/go-live/overview']

async function insertGrant(app: FastifyInstance, scopes: string[]): Promise<string> {
  const token = randomBytes(24).toString('hex')
  await app.store.sql.run(
    'INSERT INTO grants (id, subject, scopes, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    [`g-${token.slice(0, 8)}`, 'ops', JSON.stringify(scopes), hashToken(token), '2020-01-01T00:00:00Z', '2999-01-01T00:00:00Z'],
  )
  return token
}

describe('admin routes with ADMIN_TOKEN set', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp({ env: { ADMIN_TOKEN } })
  })
  afterAll(async () => {
    await app.close()
  })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  it('refuse a request without a credential, or with a wrong one, with an enveloped 401', async () => {
    for (const url of JSON_ROUTES) {
      const none = await app.inject(url)
      expect(none.statusCode, url).toBe(401)
      expect(json(none)).toMatchObject({ ok: false, data: null, refuse: { code: 'unauthorized' } })
      const wrong = await app.inject({ url, headers: bearer('not-the-token-at-all') })
      expect(wrong.statusCode, url).toBe(401)
    }
  })

  it('do not accept a forged internal marker', async () => {
    const res = await app.inject({ url: '/api/v1/admin/go-live/overview', headers: { [INTERNAL_HEADER]: 'guess', [SMOKE_HEADER]: '1' } })
    expect(res.statusCode).toBe(401)
  })

  it('answer the admin token and a grant with admin:read, refuse a grant without it (403)', async () => {
    const reader = await insertGrant(app, ['admin:read'])
    const other = await insertGrant(app, ['pin:write'])
    for (const url of JSON_ROUTES) {
      expect((await app.inject({ url, headers: bearer(ADMIN_TOKEN) })).statusCode, url).toBe(200)
      expect((await app.inject({ url, headers: bearer(reader) })).statusCode, url).toBe(200)
      const forbidden = await app.inject({ url, headers: bearer(other) })
      expect(forbidden.statusCode, url).toBe(403)
      expect(json(forbidden).refuse.code).toBe('forbidden')
    }
  })

  it('run the boot smoke checks with their own internal credential', async () => {
    const report = json(await app.inject({ url: '/api/v1/admin/go-live/overview', headers: bearer(ADMIN_TOKEN) })).data
    expect(report.blockers.boot.status).toBe('pass')
    expect(report.blockers.boot.checks.map((c: any) => c.status_code)).toEqual([200, 200, 200, 200])
    expect(report.plan.environment_summary.admin_token).toBe('set')
  })

  it('/admin asks for the token, renders for a valid bearer and refuses a wrong one', async () => {
    const anonymous = await app.inject('/admin')
    expect(anonymous.statusCode).toBe(200)
    expect(anonymous.body).toContain('id="login"')
    expect(anonymous.body).not.toContain('id="status"')
    expect(anonymous.body).toContain('sessionStorage')
    const partialAnonymous = await app.inject('/admin?partial=1')
    expect(partialAnonymous.statusCode).toBe(401)
    const wrong = await app.inject({ url: '/admin?partial=1', headers: bearer('wrong-token-wrong-token') })
    expect(wrong.statusCode).toBe(401)
    const partial = await app.inject({ url: '/admin?partial=1', headers: bearer(ADMIN_TOKEN) })
    expect(partial.statusCode).toBe(200)
    expect(partial.body).toContain('id="status"')
    expect(partial.body).not.toContain('<html')
  })

  it('/metrics needs the same credential', async () => {
    expect((await app.inject('/metrics')).statusCode).toBe(401)
    expect((await app.inject({ url: '/metrics', headers: bearer(await insertGrant(app, ['run:heavy'])) })).statusCode).toBe(403)
    const ok = await app.inject({ url: '/metrics', headers: bearer(ADMIN_TOKEN) })
    expect(ok.statusCode).toBe(200)
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
  })
})
