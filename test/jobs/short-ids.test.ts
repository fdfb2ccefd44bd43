// Short job ids, as the CLI and the command center show them: a prefix of at least 4 characters that starts one job
// names it on every job route of both surfaces; an ambiguous prefix is refused with its candidates. A prefix is looked
// up among the caller's own jobs (every job's for a caller who may list them all): a stranger's job stays unknown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, expectRefusal, json, okData } from '../helper.js'
import { createJobRepository } from '../../src/jobs/repository.js'

const ADMIN_TOKEN = 'short-ids-admin-token-0123456789'
const SAT = { dimacs: 'p cnf 3 2\n1 -2 0\n2 3 0\n' }

async function submitted(app: FastifyInstance, headers: Record<string, string> = {}): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers: { prefer: 'respond-async', ...headers } })
  expect(res.statusCode, res.body).toBe(202)
  return json(res).data.id as string
}

/** Two stored jobs whose ids share their first 8 characters. */
async function twins(app: FastifyInstance): Promise<string[]> {
  const repo = createJobRepository(app.store.sql)
  const ids = ['abcdef01-0000-4000-8000-000000000001', 'abcdef01-1111-4000-8000-000000000002']
  for (const id of ids) {
    await repo.insert({ id, op: 'sat', surface: 'caller', owner: 'client:127.0.0.1', inputParts: [JSON.stringify(SAT)], inputDigest: id, idempotencyKey: null, createdAt: Date.now() })
  }
  return ids
}

describe('short job ids on an open host', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
  })
  afterAll(async () => app.close())

  it('8 or 4 characters name the job on both surfaces: read, result, events, cancel', async () => {
    const id = await submitted(app)
    for (const prefix of [id.slice(0, 8), id.slice(0, 4).toUpperCase()]) {
      expect(okData(await app.inject(`/api/v1/jobs/${prefix}`)).id).toBe(id)
      expect(json(await app.inject(`/api/v11/jobs/${prefix}`)).id).toBe(id)
    }
    await expect.poll(async () => okData(await app.inject(`/api/v1/jobs/${id.slice(0, 8)}`)).state, { timeout: 30_000 }).toBe('succeeded')
    expect(okData(await app.inject(`/api/v1/jobs/${id.slice(0, 8)}/result`)).status).toBe('SAT')
    const events = await app.inject(`/api/v1/jobs/${id.slice(0, 8)}/events`)
    expect(events.body).toContain(`"id":"${id}"`)
    // Cancelling a finished job answers it as it stands (200).
    expect((await app.inject({ method: 'DELETE', url: `/api/v1/jobs/${id.slice(0, 8)}` })).statusCode).toBe(200)
  })

  it('an ambiguous prefix is refused with the candidates; a longer one names the job; 3 characters are no prefix', async () => {
    const [first, second] = await twins(app)
    const refusal = expectRefusal(await app.inject('/api/v1/jobs/abcdef01'), 'invalid_input', 400)
    expect(refusal.reason).toMatch(/the job id prefix abcdef01 is ambiguous: 2 jobs start with it/)
    expect(refusal.hints.candidates).toEqual([first, second])
    expect(okData(await app.inject('/api/v1/jobs/abcdef01-1')).id).toBe(second)
    expect(json(await app.inject('/api/v11/jobs/abcdef01')).candidates).toEqual([first, second])
    expectRefusal(await app.inject('/api/v1/jobs/abc'), 'not_found', 404)
    expectRefusal(await app.inject('/api/v1/jobs/0000'), 'not_found', 404)
  })
})

describe('short job ids on a host with ADMIN_TOKEN', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp({ env: { ADMIN_TOKEN } })
  })
  afterAll(async () => app.close())

  it('a job is its owner\'s by id and by prefix; a stranger is told neither exists; the admin resolves any prefix', async () => {
    const repo = createJobRepository(app.store.sql)
    const id = 'fedcba98-0000-4000-8000-000000000001'
    await repo.insert({ id, op: 'sat', surface: 'caller', owner: 'grant:someone', inputParts: [JSON.stringify(SAT)], inputDigest: id, idempotencyKey: null, createdAt: Date.now() })
    expectRefusal(await app.inject(`/api/v1/jobs/${id}`), 'not_found', 404)
    expectRefusal(await app.inject(`/api/v1/jobs/${id.slice(0, 8)}`), 'not_found', 404)
    expectRefusal(await app.inject({ method: 'DELETE', url: `/api/v1/jobs/${id.slice(0, 8)}` }), 'not_found', 404)
    expect((await app.inject(`/api/v11/jobs/${id.slice(0, 8)}`)).statusCode).toBe(404)
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
    expect(okData(await app.inject({ url: `/api/v1/jobs/${id.slice(0, 8)}`, headers: admin })).id).toBe(id)
    // The admin's own job, by its prefix.
    const own = await submitted(app, admin)
    expect(okData(await app.inject({ url: `/api/v1/jobs/${own.slice(0, 8)}`, headers: admin })).id).toBe(own)
  })
})
