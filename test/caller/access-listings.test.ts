// Grants and pins read back under /api/v1/admin: paged walks stable under inserts, never a token or its hash, the
// admin:read scope, and the paging refusals as envelopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { hashToken } from '../../src/access/tokens.js'
import { buildTestApp, expectRefusal, json, manualClock, okData } from '../helper.js'

const ADMIN = 'listings-test-admin-token'
const clock = manualClock()
let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp({ env: { ADMIN_TOKEN: ADMIN }, clock })
})
afterAll(async () => app.close())

const asAdmin = { authorization: `Bearer ${ADMIN}` }
const get = (url: string, headers: Record<string, string> = asAdmin) => app.inject({ method: 'GET', url, headers })
const post = (url: string, payload: object, headers: Record<string, string> = asAdmin) => app.inject({ method: 'POST', url, payload, headers })

async function issue(subject: string, scopes: string[]) {
  clock.advance(1000)
  return okData(await post('/api/v1/grant', { subject, scopes, ttl_s: 3600 })) as { id: string; token: string }
}

async function walk(url: string, field: string, limit: number, between?: () => Promise<void>) {
  const rows: any[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 200; pages++) {
    const data: any = okData(await get(`${url}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`))
    expect(data[field].length).toBeLessThanOrEqual(limit)
    rows.push(...data[field])
    await between?.()
    if (data.next_cursor === null) return rows
    cursor = data.next_cursor
  }
  throw new Error('no last page')
}

describe('GET /api/v1/admin/grants', () => {
  const tokens: string[] = []
  beforeAll(async () => {
    for (let i = 0; i < 7; i++) tokens.push((await issue(`subject-${i}`, i % 2 ? ['pin:write'] : ['admin:read', 'trading:write'])).token)
  })

  it('lists every grant newest first with subject, scopes, expiry, last use and revocation, never a token or a hash', async () => {
    const first = okData(await get('/api/v1/admin/grants?limit=500')).grants
    const revoked = first[3]
    okData(await post('/api/v1/grant', { revoke: revoked.id }))
    clock.advance(5000)
    // A grant that authenticates a request has its last use recorded.
    okData(await get('/api/v1/admin/grants', { authorization: `Bearer ${tokens[0]}` }))
    const page = okData(await get('/api/v1/admin/grants?limit=500'))
    const byId = new Map(page.grants.map((g: { id: string }) => [g.id, g]))
    expect(byId.get(revoked.id)).toMatchObject({ revoked: true, revoked_at: expect.any(String) })
    const used = page.grants.find((g: { subject: string }) => g.subject === 'subject-0')
    expect(used).toMatchObject({ last_used_at: new Date(clock.now()).toISOString(), scopes: ['admin:read', 'trading:write'], expired: false })
    expect(page.grants.filter((g: { last_used_at: string | null }) => g.last_used_at !== null)).toHaveLength(1)
    const times = page.grants.map((g: { created_at: string }) => g.created_at)
    expect([...times].sort().reverse()).toEqual(times)
    const text = JSON.stringify(page)
    for (const token of tokens) {
      expect(text).not.toContain(token)
      expect(text).not.toContain(hashToken(token))
    }
  })

  it('walks in pages without duplicates or gaps while grants are issued', async () => {
    const before = okData(await get('/api/v1/admin/grants?limit=500')).grants.map((g: { id: string }) => g.id)
    const walked = await walk('/api/v1/admin/grants', 'grants', 2, async () => void (await issue('late', ['pin:write'])))
    expect(walked.map((g) => g.id)).toEqual(before)
  })

  it('needs admin:read, and refuses bad cursors and pages over 500 with envelopes', async () => {
    expectRefusal(await get('/api/v1/admin/grants', {}), 'unauthorized', 401)
    expectRefusal(await get('/api/v1/admin/grants', { authorization: `Bearer ${tokens[1]}` }), 'forbidden', 403)
    const bad = expectRefusal(await get('/api/v1/admin/grants?cursor=%25%25'), 'invalid_input', 400)
    expect(bad.issues[0].path).toBe('cursor')
    const page = okData(await get('/api/v1/admin/pins?limit=1'))
    expect(page).toHaveProperty('next_cursor')
    const foreign = Buffer.from(JSON.stringify([1, 'pins', ['2026-01-01T00:00:00.000Z', 'sha256:x']])).toString('base64url')
    expect(expectRefusal(await get(`/api/v1/admin/grants?cursor=${foreign}`), 'invalid_input', 400).reason).toMatch(/pins/)
    expectRefusal(await get('/api/v1/admin/grants?limit=501'), 'over_limit', 422)
    expectRefusal(await get('/api/v1/admin/pins?limit=9999'), 'over_limit', 422)
    expectRefusal(await get('/api/v1/admin/pins?cursor=abc'), 'invalid_input', 400)
  })
})

describe('GET /api/v1/admin/pins', () => {
  it('lists pins newest first without content, walks them in pages while more are pinned, and reads one verified', async () => {
    const digests: string[] = []
    for (let i = 0; i < 9; i++) {
      clock.advance(1000)
      digests.push(okData(await post('/api/v1/pin', { content: `pin number ${i}\n`, label: `n${i}` })).digest)
    }
    clock.advance(1000)
    const jsonPin = okData(await post('/api/v1/pin', { json: { b: 1, a: [2] } })).digest
    const all = okData(await get('/api/v1/admin/pins?limit=500')).pins
    expect(all.map((p: { digest: string }) => p.digest).slice(0, 10)).toEqual([jsonPin, ...digests.reverse()])
    expect(all[0]).not.toHaveProperty('content')
    let n = 100
    const walked = await walk('/api/v1/admin/pins', 'pins', 3, async () => {
      clock.advance(1000)
      okData(await post('/api/v1/pin', { content: `late pin ${n++}` }))
    })
    expect(walked.map((p) => p.digest)).toEqual(all.map((p: { digest: string }) => p.digest))

    const one = okData(await get(`/api/v1/admin/pins/${digests[0]}`))
    expect(one).toMatchObject({ digest: digests[0], verified: true, content: 'pin number 8\n', label: 'n8', media_type: 'text/plain' })
    expect(okData(await get(`/api/v1/admin/pins/${jsonPin}`)).json).toEqual({ a: [2], b: 1 })
    expectRefusal(await get(`/api/v1/admin/pins/sha256:${'0'.repeat(64)}`), 'not_found', 404)
    expectRefusal(await get('/api/v1/admin/pins/sha256:nothex'), 'invalid_input', 400)
  })

  it('is documented in /docs/json with the paging parameters', async () => {
    const doc = json(await get('/docs/json'))
    for (const path of ['/api/v1/admin/grants', '/api/v1/admin/pins']) {
      const names = doc.paths[path].get.parameters.map((p: { name: string }) => p.name)
      expect(names).toEqual(expect.arrayContaining(['limit', 'cursor']))
    }
    expect(doc.paths['/api/v1/admin/pins/{digest}'].get).toBeDefined()
  })
})
