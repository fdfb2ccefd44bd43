// Issue #25 item 11 over a real socket: identical submissions of one client share one job (its input and answer are
// stored once) where the answer is a function of the input alone, and jobs are kept by count as well as by age
// (JOB_RETENTION_MAX_JOBS), which the readiness report shows. 600 identical backtests had grown the database by 34 MB.
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'

const host = listeningTestApp({ env: { JOB_RETENTION_MAX_JOBS: '5', TRUST_PROXY: 'true' } })
const BACKTEST = { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 } }

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(host.base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.statusCode, headers: res.headers, json: (await res.body.json()) as any }
}
const count = async (sql: string, params: unknown[] = []) => Number((await host.app.store.sql.get<{ n: number }>(sql, params))!.n)

describe('job dedupe and retention (item 11)', () => {
  it('identical backtests of one client share one job: one row, one stored input and answer', async () => {
    const before = await count('SELECT count(*) AS n FROM jobs')
    const answers = []
    for (let i = 0; i < 20; i++) answers.push(await post('/api/v11/trading/backtest', BACKTEST))
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200))
    expect(new Set(answers.map((a) => JSON.stringify(a.json.stats))).size).toBe(1)
    expect(await count('SELECT count(*) AS n FROM jobs') - before).toBe(1)
    // Asked asynchronously it is the same job, said so.
    const again = await post('/api/v11/trading/backtest', BACKTEST, { prefer: 'respond-async' })
    expect(again.status).toBe(202)
    expect(again.headers['idempotent-replayed']).toBe('true')
    // Another client has a job of its own (jobs are their owners').
    await post('/api/v11/trading/backtest', BACKTEST, { 'x-forwarded-for': '198.51.100.1' })
    expect(await count('SELECT count(*) AS n FROM jobs') - before).toBe(2)
  })

  it('shares a job only while the run its answer names stands: after DELETE of that run the same backtest runs again', async () => {
    const input = { ...BACKTEST, params: { fast: 7, slow: 31 } }
    const first = await post('/api/v11/trading/backtest', input)
    expect(first.status).toBe(200)
    const runId = first.json.run.id
    const jobsBefore = await count('SELECT count(*) AS n FROM jobs')
    expect((await post('/api/v11/trading/backtest', input)).json.run.id).toBe(runId) // shared while it stands
    expect(await count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore)
    const deleted = await request(`${host.base}/api/v11/runs/${runId}`, { method: 'DELETE' })
    expect(deleted.statusCode).toBe(200)
    await deleted.body.dump()
    const again = await post('/api/v11/trading/backtest', input)
    expect(again.status).toBe(200)
    expect(await count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore + 1)
    expect(again.json.run).toMatchObject({ stored: true, same_inputs_as_run: null })
    expect(again.json.run.id).toBeGreaterThan(runId) // run ids are never reused (migration 0072)
    const read = await request(`${host.base}/api/v11/runs/${again.json.run.id}`)
    expect(read.statusCode).toBe(200)
    await read.body.dump()
  })

  it('keeps the inputs and answers of the newest JOB_RETENTION_MAX_JOBS jobs only, and the readiness report says so', async () => {
    for (let fast = 2; fast < 14; fast++) {
      expect((await post('/api/v11/trading/backtest', { ...BACKTEST, params: { fast, slow: 30 } })).status).toBe(200)
    }
    await host.app.jobs.purgeExpired()
    expect(await count('SELECT count(*) AS n FROM jobs WHERE purged_at IS NULL')).toBeLessThanOrEqual(5)
    expect(await count("SELECT count(DISTINCT job_id) AS n FROM job_parts WHERE kind = 'input'")).toBeLessThanOrEqual(5)
    const report = (await host.app.inject({ url: '/api/v1/admin/go-live/overview' })).json().data
    expect(report.job_retention).toMatchObject({ max_jobs: 5, max_age_h: 24, error: null })
    expect(report.job_retention.kept_jobs).toBeLessThanOrEqual(5)
  }, 60_000)
})
