// Jobs, credentials, pins and discovery on a host whose store is PostgreSQL (DATABASE_URL): the same routes answer as
// on SQLite. Skipped with the reason printed when PostgreSQL cannot be reached (a failure under CI=true).
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../../src/store/test-postgres.js'
import { buildTestApp, json, okData } from '../helper.js'

const unavailable = await postgresUnavailable()
const ADMIN = 'test-admin-token-0123456789'
const admin = { authorization: `Bearer ${ADMIN}` }
const SAT = { dimacs: 'p cnf 3 2\n1 -2 0\n2 3 0\n' }

describe.skipIf(unavailable !== null)('jobs and access on PostgreSQL', () => {
  let database: TestDatabase
  let app: FastifyInstance
  beforeAll(async () => {
    database = await createTestDatabase()
    app = await buildTestApp({ env: { DATABASE_URL: database.url, DATABASE_POOL_MAX: '3', ADMIN_TOKEN: ADMIN } })
  })
  afterAll(async () => {
    await app?.close()
    await database?.drop()
  })

  it('runs a job to its result, one job per racing Idempotency-Key, and lists jobs by cursor', async () => {
    const headers = { ...admin, prefer: 'respond-async', 'idempotency-key': 'pg-sat' }
    const answers = await Promise.all([1, 2, 3].map(() => app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers })))
    expect(answers.map((res) => res.statusCode)).toEqual([202, 202, 202])
    const ids = new Set(answers.map((res) => json(res).data.id))
    expect(ids.size).toBe(1)
    const [id] = [...ids]
    const end = Date.now() + 20_000
    let job = okData(await app.inject({ url: `/api/v1/jobs/${id}`, headers: admin }))
    while (job.state !== 'succeeded' && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      job = okData(await app.inject({ url: `/api/v1/jobs/${id}`, headers: admin }))
    }
    expect(job).toMatchObject({ state: 'succeeded', attempts: 1 })
    const sync = okData(await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers: admin }))
    const result = okData(await app.inject({ url: `/api/v1/jobs/${id}/result`, headers: admin }))
    // The solver's stats carry its time, which differs between two runs.
    expect({ ...result, stats: null }).toEqual({ ...sync, stats: null })
    expect(result.status).toBe('SAT')

    await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers: { ...admin, prefer: 'respond-async' } })
    const first = okData(await app.inject({ url: '/api/v1/jobs?limit=1&op=sat', headers: admin }))
    expect(first.jobs).toHaveLength(1)
    const rest = okData(await app.inject({ url: `/api/v1/jobs?limit=5&op=sat&cursor=${first.next_cursor}`, headers: admin }))
    expect(rest.jobs.map((j: { id: string }) => j.id)).toContain(id)
    expect(rest.next_cursor).toBeNull()
  })

  it('honours a grant until it is revoked; pins are stored once and listed; discovery names PostgreSQL', async () => {
    const issued = okData(await app.inject({ method: 'POST', url: '/api/v1/grant', payload: { subject: 'pg', scopes: ['pin:write'], ttl_s: 600 }, headers: admin }))
    const bearer = { authorization: `Bearer ${issued.token}` }
    const pinned = await Promise.all([1, 2].map(() => app.inject({ method: 'POST', url: '/api/v1/pin', payload: { content: 'on postgres' }, headers: bearer })))
    expect(pinned.map((res) => okData(res).created).sort()).toEqual([false, true])
    const { digest } = okData(pinned[0]!)
    expect(okData(await app.inject({ method: 'POST', url: '/api/v1/pin', payload: { digest } }))).toMatchObject({ verified: true, content: 'on postgres' })
    expect(okData(await app.inject({ url: '/api/v1/admin/pins', headers: admin })).pins.map((p: { digest: string }) => p.digest)).toEqual([digest])
    const grants = okData(await app.inject({ url: '/api/v1/admin/grants', headers: admin })).grants
    expect(grants).toEqual([expect.objectContaining({ id: issued.id, revoked: false, last_used_at: expect.any(String) })])

    okData(await app.inject({ method: 'POST', url: '/api/v1/grant', payload: { revoke: issued.id }, headers: admin }))
    const refused = json(await app.inject({ method: 'POST', url: '/api/v1/pin', payload: { content: 'after' }, headers: bearer }))
    expect(refused.refuse).toMatchObject({ code: 'unauthorized' })

    const capabilities = okData(await app.inject({ url: '/api/v1/capabilities' })).capabilities
    expect(capabilities.find((c: { name: string }) => c.name === 'postgresql')).toMatchObject({ available: true, reason: expect.stringMatching(/PostgreSQL \d+\.\d+/) })
    expect(okData(await app.inject({ url: '/api/v1/inventory' })).stored).toMatchObject({ pins: 1, grants: 1, active_grants: 0 })
    expect(okData(await app.inject({ url: '/api/v1/detect' })).versions.sqlite).toBeNull()
  })
})
