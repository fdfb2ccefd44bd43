// Issue #13 item 9 over a real socket: anonymous backtests cannot grow the store without bound. Identical runs are stored
// once, equity curves only when asked for, and a retention policy (count and age) keeps the newest runs; the readiness
// report shows the policy.
import { beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from './helper.js'

const MAX_RUNS = 5
// Behind a trusted proxy, each repeat from a client of its own: one client's identical backtests share one job (issue
// #25), and what is under test here is that different clients' identical runs are stored once.
const host = listeningTestApp({ env: { RUN_RETENTION_MAX_RUNS: String(MAX_RUNS), RUN_RETENTION_MAX_AGE_DAYS: '30', TRUST_PROXY: 'true' } })
let clients = 0
beforeAll(async () => {
  // Not a test of shedding: on the shared, loaded test machine a blocked sampling window reads as infinite delay.
  host.app.admission.override('live-bound')
})

async function backtest(body: Record<string, unknown>) {
  const res = await request(`${host.base}/api/v11/trading/backtest`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${++clients % 250}` },
    body: JSON.stringify({ dataset: 'SYN-DAILY', strategy: 'sma_cross', ...body }),
  })
  const answer = (await res.body.json()) as any
  expect(res.statusCode, JSON.stringify(answer).slice(0, 300)).toBe(200)
  return answer
}
const runs = () => host.app.store.sql.all<{ id: number; has_equity: 0 | 1; created_at: string }>('SELECT id, CASE WHEN equity IS NULL THEN 0 ELSE 1 END AS has_equity, created_at FROM runs ORDER BY id')

describe('run storage is bounded (item 9)', () => {
  it('stores identical backtests once, with their curve, trades and equity (pruned with the run)', async () => {
    const before = (await runs()).length
    const first = await backtest({ params: { fast: 7, slow: 21 } })
    expect(first.run).toMatchObject({ stored: true, same_inputs_as_run: null })
    for (let i = 0; i < 10; i++) {
      const again = await backtest({ params: { fast: 7, slow: 21 } })
      expect(again.run).toMatchObject({ id: first.run.id, stored: false, same_inputs_as_run: first.run.id, inputs_digest: first.run.inputs_digest })
      expect(again.stats).toEqual(first.stats)
    }
    expect((await runs()).length).toBe(before + 1)
    expect((await runs()).at(-1)).toMatchObject({ id: first.run.id, has_equity: 1 })
    const withCurve = await backtest({ params: { fast: 7, slow: 21 }, include: ['equity'] })
    expect(withCurve.run).toMatchObject({ id: first.run.id, stored: false })
    expect((await runs()).length).toBe(before + 1)
  })

  it('keeps only the newest RUN_RETENTION_MAX_RUNS runs', async () => {
    const ids: number[] = []
    for (let slow = 30; slow < 38; slow++) ids.push((await backtest({ params: { fast: 5, slow } })).run.id)
    expect((await runs()).map((r) => r.id)).toEqual(ids.slice(-MAX_RUNS))
    const gone = await request(`${host.base}/api/v11/runs/${ids[0]}`)
    expect(gone.statusCode).toBe(404)
    await gone.body.dump()
    // A pruned run's trades and curve go with it.
    const kept = await host.app.store.sql.all<{ run_id: number }>('SELECT DISTINCT run_id FROM run_equity ORDER BY run_id')
    expect(kept.map((r) => Number(r.run_id))).toEqual(ids.slice(-MAX_RUNS))
  })

  it('drops runs older than RUN_RETENTION_MAX_AGE_DAYS at the next stored run', async () => {
    const old = (await runs()).map((r) => r.id)
    // Age the stored runs by a month (the host's clock drives admission too, so the rows move instead of the clock).
    await host.app.store.sql.run('UPDATE runs SET created_at = ?', [new Date(Date.now() - 31 * 86_400_000).toISOString()])
    const fresh = await backtest({ params: { fast: 3, slow: 50 } })
    expect((await runs()).map((r) => r.id)).toEqual([fresh.run.id])
    expect(old).not.toContain(fresh.run.id)
  })

  it('the readiness report shows the policy and what the store holds', async () => {
    const res = await request(`${host.base}/api/v1/admin/go-live/overview`)
    const body = (await res.body.json()) as any
    expect(res.statusCode).toBe(200)
    expect(body.data.run_retention).toMatchObject({ max_runs: MAX_RUNS, max_age_days: 30, stored_runs: (await runs()).length, error: null })
    expect(body.data.run_retention.policy).toMatch(/identical runs are stored once/)
  })
})
