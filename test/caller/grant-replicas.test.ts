// Two hosts on one database (replicas behind a balancer): a grant issued on one works on the other, and once revoked
// on one it is refused by the other on its very next request (grants are read per request, never cached).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'

const ADMIN = 'test-admin-token-0123456789'
let dataDir: string
let first: FastifyInstance
let second: FastifyInstance
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ncm-replicas-'))
  const env = { ADMIN_TOKEN: ADMIN, DATABASE_PATH: join(dataDir, 'shared.db') }
  first = await buildTestApp({ env })
  second = await buildTestApp({ env })
})
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()])
  rmSync(dataDir, { recursive: true, force: true })
})

const post = async (app: FastifyInstance, url: string, payload: object, token: string) =>
  json(await app.inject({ method: 'POST', url: `/api/v1${url}`, payload, headers: { authorization: `Bearer ${token}` } }))

describe('a grant across two hosts on one database', () => {
  it('is honoured by the other host, and refused there on the next request after a revocation', async () => {
    const issued = (await post(first, '/grant', { subject: 'replica', scopes: ['pin:write'], ttl_s: 600 }, ADMIN)).data
    expect((await post(second, '/pin', { content: 'replica: before' }, issued.token)).ok).toBe(true)

    expect((await post(first, '/grant', { revoke: issued.id }, ADMIN)).data).toMatchObject({ action: 'revoked', already_revoked: false })
    const after = await post(second, '/pin', { content: 'replica: after' }, issued.token)
    expect(after.refuse).toMatchObject({ code: 'unauthorized', http_status: 401 })
    expect(after.refuse.reason).toMatch(/revoked/)
    expect((await post(second, '/grant', { revoke: issued.id }, ADMIN)).data.already_revoked).toBe(true)
  })
})
