// Issue #13: GET /command-center from many connections at once, over a real socket with health and the loop watched.
// Each answer read the panels (synchronous SQLite) and rendered them (runs table, equity chart) on the loop: a burst of
// 30 held the loop's CPU 30-40 ms. The page is rendered once per data version and second (src/trading/page-cache.ts);
// a write still shows on the very next request.
import { beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { burstsBesideHealth } from './bursts.js'
import { keepingBytes, pastStartReport, postRaw } from './monitor.js'

const host = listeningTestApp()

const PARALLEL = 30
const ROUNDS = 3
/** Backtests that keep their curve: a full runs panel and a chart of many points, as on a used host. */
const RUNS = 10

async function backtest(fast: number): Promise<number> {
  const res = await postRaw(host.base, '/api/v11/trading/backtest', JSON.stringify({
    dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast, slow: 30 }, cash: 10_000, commission: 0.001, include: ['equity'],
  }))
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
  return res.body.run.id as number
}

const page = async () => (await keepingBytes(`${host.base}/command-center`)).bytes().toString()

describe('GET /command-center from many connections at once', () => {
  beforeAll(async () => {
    await pastStartReport(host.app)
    host.app.admission.override('live-bound')
    for (let i = 0; i < RUNS; i++) await backtest(5 + i)
  }, 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: every answer the page, none holding the loop past the bound`, async () => {
    expect(await page()).toContain('id="equity-chart"')
    const texts = await burstsBesideHealth(host.base, '/command-center', ROUNDS, PARALLEL)
    for (const text of texts) expect(text).toMatch(/<section class="panel" id="panel-runs"[^]*<\/html>$/)
  })

  it('shows a new run on the next request, however soon after the last render', async () => {
    await page()
    const id = await backtest(25)
    const after = await page()
    expect(after).toContain(`data-run-id="${id}"`)
    expect(after).toContain(`>#${id}<`)
  })
})
