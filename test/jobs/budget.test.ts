// A job's budget and refusing before a job exists, through HTTP: an async submission may ask timeout_ms up to
// JOB_MAX_MS (and the mill is given it), the sync call keeps its 60 s cap; bad input is refused at submission with the
// sync call's refusal and leaves no job row.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, expectRefusal, json, okData } from '../helper.js'
import { createJobRepository } from '../../src/jobs/repository.js'

const ASYNC = { prefer: 'respond-async' }
const JOB_MAX_MS = 180_000
const SAT = { dimacs: 'p cnf 3 2\n1 -2 0\n2 3 0\n' }
const BACKTEST = { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 } }

let app: FastifyInstance

beforeAll(async () => {
  app = await buildTestApp({ env: { JOB_MAX_MS: String(JOB_MAX_MS) } })
})
afterEach(() => vi.restoreAllMocks())
afterAll(async () => app.close())

async function settled(url: string, read: (body: any) => any): Promise<any> {
  const end = Date.now() + 20_000
  for (;;) {
    const job = read(await app.inject({ url }))
    if (['succeeded', 'failed', 'cancelled'].includes(job.state) || Date.now() > end) return job
    await new Promise((r) => setTimeout(r, 25))
  }
}

const jobCount = async () => json(await app.inject({ url: '/api/v11/jobs?limit=500' })).jobs.length

describe('a job may ask for a longer budget than a request', () => {
  it('async timeout_ms 120000 → 202; the job keeps it and the mill runs its task under it', async () => {
    const run = vi.spyOn(app.mill, 'run')
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { ...SAT, timeout_ms: 120_000 }, headers: ASYNC })
    expect(res.statusCode, res.body).toBe(202)
    const id = json(res).data.id
    const stored = (await createJobRepository(app.store.sql).input(id))!.value() as Record<string, unknown>
    expect(stored.timeout_ms).toBe(120_000)
    const job = await settled(`/api/v1/jobs/${id}`, (r) => okData(r))
    expect(job.state).toBe('succeeded')
    expect(run.mock.calls.map((call) => call[2].timeoutMs)).toContain(120_000)
  })

  it('the sync call still refuses timeout_ms above 60 s, as the schema says', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { ...SAT, timeout_ms: 120_000 } })
    const refuse = expectRefusal(res, 'invalid_input', 400)
    expect(refuse.issues).toEqual([expect.objectContaining({ path: 'timeout_ms' })])
    expect(refuse.issues[0].message).toMatch(/60000/)
  })

  it('async above JOB_MAX_MS is over_limit, naming the limit; no job is made', async () => {
    const before = await jobCount()
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { ...SAT, timeout_ms: JOB_MAX_MS + 1 }, headers: ASYNC })
    const refuse = expectRefusal(res, 'over_limit', 422)
    expect(refuse.reason).toMatch(/JOB_MAX_MS/)
    expect(refuse.hints.limit).toEqual({ name: 'JOB_MAX_MS', value: JOB_MAX_MS, requested: JOB_MAX_MS + 1 })
    expect(await jobCount()).toBe(before)
  })

  it('trading: async backtest with 120000 is a job with that budget; sync is refused; above JOB_MAX_MS is over_limit', async () => {
    const run = vi.spyOn(app.mill, 'run')
    const res = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: { ...BACKTEST, timeout_ms: 120_000 }, headers: ASYNC })
    expect(res.statusCode, res.body).toBe(202)
    const job = await settled(`/api/v11/jobs/${json(res).id}`, json)
    expect(job.state).toBe('succeeded')
    expect(run.mock.calls.map((call) => call[2].timeoutMs)).toContain(120_000)

    const sync = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: { ...BACKTEST, timeout_ms: 120_000 } })
    expect(sync.statusCode).toBe(400)
    expect(json(sync).code).toBe('invalid_input')
    const over = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: { ...BACKTEST, timeout_ms: JOB_MAX_MS + 1 }, headers: ASYNC })
    expect(over.statusCode).toBe(422)
    expect(json(over).code).toBe('over_limit')
  })

  it('an async body that is wrong elsewhere is refused for that, listing every problem', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { dimacs: 42, timeout_ms: 120_000 }, headers: ASYNC })
    const refuse = expectRefusal(res, 'invalid_input', 400)
    expect(refuse.issues.map((i: { path: string }) => i.path)).toEqual(['dimacs'])
  })
})

describe('bad input is refused before a job exists, as the sync call refuses it', () => {
  it('caller: a malformed formula (jsonsat) gets the sync refusal and no job row', async () => {
    const bad = { formula: { nand: [{ var: 'a' }] } }
    const before = await jobCount()
    const res = await app.inject({ method: 'POST', url: '/api/v1/jsonsat', payload: bad, headers: ASYNC })
    const sync = await app.inject({ method: 'POST', url: '/api/v1/jsonsat', payload: bad })
    expect(res.statusCode).toBeGreaterThanOrEqual(400)
    expect(res.statusCode).toBe(sync.statusCode)
    expect(json(res).refuse).toEqual(json(sync).refuse)
    expect(await jobCount()).toBe(before)
  })

  it('trading: a backtest range with no bars gets the sync 422 problem and no job row', async () => {
    const bad = { ...BACKTEST, from: '2030-01-01' }
    const before = await jobCount()
    const res = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: bad, headers: ASYNC })
    const sync = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: bad })
    expect(res.statusCode).toBeGreaterThanOrEqual(400)
    expect(res.statusCode).toBe(sync.statusCode)
    expect(res.headers['content-type']).toMatch(/problem\+json/)
    expect(json(res).detail).toBe(json(sync).detail)
    expect(await jobCount()).toBe(before)
  })

  it('trading: a walk-forward grid over its limit is refused at submission', async () => {
    const bad = { dataset: 'SYN-DAILY', in_sample: 100_000 }
    const before = await jobCount()
    const res = await app.inject({ method: 'POST', url: '/api/v11/trading/max-edge-signal', payload: bad, headers: ASYNC })
    expect(res.statusCode).toBe(400)
    expect(json(res).detail).toMatch(/in_sample \+ out_of_sample/)
    expect(await jobCount()).toBe(before)
  })
})
