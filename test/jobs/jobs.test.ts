// Jobs through HTTP: submit with Prefer: respond-async, poll, read the result (caller and trading), idempotent
// submission, paging, purge after the retention (hand-moved clock), and that the sync call answers as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json, manualClock, okData, expectRefusal } from '../helper.js'

const ASYNC = { prefer: 'respond-async' }
const SAT = { dimacs: 'p cnf 3 2\n1 -2 0\n2 3 0\n' }
const BACKTEST = { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 }, cash: 10_000, commission: 0.002 }

let app: FastifyInstance
const clock = manualClock()

beforeAll(async () => {
  app = await buildTestApp({ clock, env: { JOB_RETENTION_H: '1' } })
})
afterAll(async () => app.close())

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > end) return value
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('caller jobs (/api/v1)', () => {
  it('submit → 202 with Location and the job; poll to succeeded; the result equals the sync answer', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers: ASYNC })
    expect(res.statusCode).toBe(202)
    expect(res.headers['preference-applied']).toBe('respond-async')
    const job = json(res).data
    expect(json(res).ok).toBe(true)
    expect(res.headers.location).toBe(`/api/v1/jobs/${job.id}`)
    expect(job).toMatchObject({ op: 'sat', url: `/api/v1/jobs/${job.id}` })
    expect(['queued', 'running', 'succeeded']).toContain(job.state)
    // Where to cancel it while it can be cancelled; nothing once it is final.
    expect(job.cancel_url).toBe(job.state === 'succeeded' ? null : `/api/v1/jobs/${job.id}`)

    const polled = await until(async () => okData(await app.inject({ url: res.headers.location as string })), (j) => j.state === 'succeeded')
    expect(polled.state).toBe('succeeded')
    expect(polled.result_url).toBe(`/api/v1/jobs/${job.id}/result`)
    expect(polled.cancel_url).toBeNull()
    const result = okData(await app.inject({ url: polled.result_url }))
    const sync = okData(await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT }))
    expect({ ...result, stats: null }).toEqual({ ...sync, stats: null })
    expect(result.status).toBe('SAT')
  })

  it('refuses first: invalid input is a 400 before any job exists', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { dimacs: 42 }, headers: ASYNC })
    expectRefusal(res, 'invalid_input', 400)
  })

  it('a failed job answers its refusal from …/result with the sync status', async () => {
    const bad = { dimacs: 'p cnf 1 1\n2 0\n' }
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: bad, headers: ASYNC })
    const id = json(res).data.id
    const job = await until(async () => okData(await app.inject({ url: `/api/v1/jobs/${id}` })), (j) => j.state === 'failed')
    expect(job.refuse.code).toBe('invalid_input')
    const sync = json(await app.inject({ method: 'POST', url: '/api/v1/sat', payload: bad }))
    const read = await app.inject({ url: `/api/v1/jobs/${id}/result` })
    expect(read.statusCode).toBe(400)
    expect(json(read).refuse).toEqual(sync.refuse)
  })

  it('an Idempotency-Key returns the same job; the same key with another input is a conflict', async () => {
    const headers = { ...ASYNC, 'idempotency-key': 'sat-once' }
    const first = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers })
    const again = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers })
    expect(json(again).data.id).toBe(json(first).data.id)
    expect(again.headers['idempotent-replayed']).toBe('true')
    const other = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { dimacs: 'p cnf 1 1\n1 0\n' }, headers })
    expectRefusal(other, 'conflict', 409)
  })

  it('two submissions racing with one Idempotency-Key make one job', async () => {
    const headers = { ...ASYNC, 'idempotency-key': 'sat-race' }
    const answers = await Promise.all([1, 2, 3].map(() => app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers })))
    expect(answers.map((res) => res.statusCode)).toEqual([202, 202, 202])
    expect(new Set(answers.map((res) => json(res).data.id)).size).toBe(1)
    expect(answers.filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(2)
  })

  it('an unknown job is a 404 envelope', async () => {
    expectRefusal(await app.inject({ url: '/api/v1/jobs/nope' }), 'not_found', 404)
  })
})

describe('trading jobs (/api/v11)', () => {
  it('submit a backtest → 202 plain JSON; poll; the sync call of the same input shares the job and answers its result', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: BACKTEST, headers: ASYNC })
    expect(res.statusCode).toBe(202)
    const job = json(res)
    expect(res.headers.location).toBe(`/api/v11/jobs/${job.id}`)
    expect(job.op).toBe('trading.backtest')
    const done = await until(async () => json(await app.inject({ url: `/api/v11/jobs/${job.id}` })), (j) => j.state === 'succeeded')
    expect(done.state).toBe('succeeded')
    expect(done.progress).toMatchObject({ fraction: 1, phase: 'succeeded' })
    const result = json(await app.inject({ url: done.result_url }))
    // Identical submissions of one client share one job (issue #25): the answer is the job's, run and all.
    const sync = json(await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: BACKTEST }))
    expect(sync).toEqual(result)
  })

  it('refuses first: an unknown dataset is the sync 404 problem at submission, no job made', async () => {
    const before = json(await app.inject({ url: '/api/v11/jobs?limit=500' })).jobs.length
    const res = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: { ...BACKTEST, dataset: 'NOPE' }, headers: ASYNC })
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toMatch(/problem\+json/)
    const sync = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: { ...BACKTEST, dataset: 'NOPE' } })
    expect(json(sync).detail).toBe(json(res).detail)
    expect(json(await app.inject({ url: '/api/v11/jobs?limit=500' })).jobs.length).toBe(before)
  })
  // Refusals the sync call finds before its heavy work (e.g. a range with no bars) now refuse at submission: budget.test.ts.
})

describe('listing, paging, purge', () => {
  it('lists newest first with state and op filters, paged by cursor without gaps or repeats', async () => {
    for (let i = 0; i < 5; i++) await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { dimacs: `p cnf ${i + 1} 1\n1 0\n` }, headers: ASYNC })
    const all = okData(await app.inject({ url: '/api/v1/jobs?limit=500' })).jobs
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: { jobs: Array<{ id: string }>; next_cursor: string | null; limit: number } =
        okData(await app.inject({ url: `/api/v1/jobs?limit=2${cursor ? `&cursor=${cursor}` : ''}` }))
      expect(page.jobs.length).toBeLessThanOrEqual(2)
      seen.push(...page.jobs.map((j) => j.id))
      cursor = page.next_cursor
    } while (cursor)
    expect(seen).toEqual(all.map((j: { id: string }) => j.id))
    const trading = json(await app.inject({ url: '/api/v11/jobs?op=trading.backtest' })).jobs
    expect(trading.length).toBeGreaterThan(0)
    expect(trading.every((j: { op: string }) => j.op === 'trading.backtest')).toBe(true)
    const failed = okData(await app.inject({ url: '/api/v1/jobs?state=failed' })).jobs
    expect(failed.every((j: { state: string }) => j.state === 'failed')).toBe(true)
    expectRefusal(await app.inject({ url: '/api/v1/jobs?limit=501' }), 'over_limit', 422)
    expectRefusal(await app.inject({ url: '/api/v1/jobs?cursor=bogus!' }), 'invalid_input', 400)
  })

  it('purges a finished job after JOB_RETENTION_H: the job and its result answer 404 saying so', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sat', payload: SAT, headers: { ...ASYNC, 'idempotency-key': 'purge-me' } })
    expect(res.statusCode, res.body).toBe(202)
    const id = json(res).data.id
    await until(async () => okData(await app.inject({ url: `/api/v1/jobs/${id}` })), (j) => j.state === 'succeeded')
    clock.advance(59 * 60_000)
    expect(okData(await app.inject({ url: `/api/v1/jobs/${id}/result` })).status).toBe('SAT')
    clock.advance(2 * 60_000)
    const gone = expectRefusal(await app.inject({ url: `/api/v1/jobs/${id}/result` }), 'not_found', 404)
    expect(gone.reason).toMatch(/purged/)
    expect(expectRefusal(await app.inject({ url: `/api/v1/jobs/${id}` }), 'not_found', 404).reason).toMatch(/purged/)
    const listed = okData(await app.inject({ url: '/api/v1/jobs?limit=500' })).jobs
    expect(listed.some((j: { id: string }) => j.id === id)).toBe(false)
  })
})

// Last: /admin runs the readiness report, whose start-up work can trip this app's event-loop measure into shedding.
describe('metrics and the admin page', () => {
  it('/metrics exports jobs by state and a job-duration histogram; /admin shows queue depth and throughput', async () => {
    const text = (await app.inject({ url: '/metrics' })).body
    // Every state has its line (the purge above emptied them: purged jobs are not counted).
    for (const state of ['queued', 'running', 'succeeded', 'failed', 'cancelled']) expect(text).toMatch(new RegExp(`^ncm_jobs\\{state="${state}"\\} \\d+$`, 'm'))
    expect(text).toMatch(/^# TYPE ncm_job_duration_seconds histogram$/m)
    const count = Number(/^ncm_job_duration_seconds_count (\d+)$/m.exec(text)?.[1])
    expect(Number(/^ncm_job_duration_seconds_bucket\{le="\+Inf"\} (\d+)$/m.exec(text)?.[1])).toBe(count)
    expect(count).toBeGreaterThan(0)
    const page = (await app.inject({ url: '/admin' })).body
    expect(page).toMatch(/id="jobs"/)
    expect(page).toMatch(/queue depth/)
  })
})
