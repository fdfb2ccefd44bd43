// The job list hands out every job id (each a capability to read or cancel that job), so with ADMIN_TOKEN set it
// answers only admin:read; in development mode (no ADMIN_TOKEN) it stays open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.js'

const ADMIN = 'list-scope-admin-token-0123456789'

describe('GET …/jobs with ADMIN_TOKEN set', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp({ env: { ADMIN_TOKEN: ADMIN } })
  })
  afterAll(async () => app?.close())

  it('refuses an anonymous list on both surfaces, naming the scope', async () => {
    const caller = await app.inject('/api/v1/jobs')
    expect(caller.statusCode).toBe(401)
    expect(caller.json().refuse.code).toBe('unauthorized')
    expect(caller.json().refuse.reason).toContain('admin:read')
    const trading = await app.inject('/api/v11/jobs')
    expect(trading.statusCode).toBe(401)
    expect(trading.headers['content-type']).toContain('application/problem+json')
  })

  it('refuses before the query is validated', async () => {
    const res = await app.inject('/api/v11/jobs?limit=99999')
    expect(res.statusCode).toBe(401)
  })

  it('lists for the admin credential', async () => {
    const res = await app.inject({ url: '/api/v11/jobs', headers: { authorization: `Bearer ${ADMIN}` } })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toHaveProperty('next_cursor')
  })
})
