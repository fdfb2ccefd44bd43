// A v10 grid split across two mill workers answers exactly what it answers as one task on a one-worker mill.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'

let one: FastifyInstance
let two: FastifyInstance

beforeAll(async () => {
  ;[one, two] = await Promise.all([buildTradingApp({ env: { MILL_THREADS: '1' } }), buildTradingApp({ env: { MILL_THREADS: '2' } })])
})
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()])
})

// 2,500 pairs × 800 bars: two shares of the least work a share is given
const request = {
  dataset: 'SYN-DAILY',
  fast: Array.from({ length: 50 }, (_, i) => 2 + i),
  slow: Array.from({ length: 50 }, (_, i) => 52 + i),
  commission: 0.001,
}

// Identical requests of one client share one job (issue #25): each test's requests carry a budget of their own, so each
// is computed, as the task counts below expect.
let budgets = 30_000
const ask = (app: FastifyInstance, maximize: string, timeout_ms = ++budgets) =>
  app.inject({ method: 'POST', url: '/api/v10/trading/max-edge-signal', payload: { ...request, maximize, timeout_ms } })

describe('POST /api/v10/trading/max-edge-signal on several workers', () => {
  it('does not wait for a worker to start for a grid this small: one grid task on the started worker', async () => {
    await two.mill.run('mill.spin', { ms: 1 }, { timeoutMs: 30_000, owner: null })
    const before = two.mill.stats().completed
    expect(two.mill.agents()).toHaveLength(1)
    expect((await ask(two, 'sharpe_ratio')).statusCode).toBe(200)
    // the grid as one task, then its verdict on overfitting
    expect(two.mill.stats().completed - before).toBe(2)
    // two tasks at once: the pool starts its second worker, which the next requests find idle
    for (let i = 0; i < 10 && two.mill.agents().length < 2; i++) {
      await Promise.all([0, 1].map(() => two.mill.run('mill.spin', { ms: 100 }, { timeoutMs: 30_000, owner: null })))
    }
    expect(two.mill.agents()).toHaveLength(2)
  })

  for (const maximize of ['sharpe_ratio', 'win_rate_pct', 'sqn'] as const) {
    it(`answers the same as one task, field for field (maximize ${maximize})`, async () => {
      const doneBefore = [one.mill.stats().completed, two.mill.stats().completed]
      const budget = ++budgets
      const [alone, split] = await Promise.all([ask(one, maximize, budget), ask(two, maximize, budget)])
      expect(alone.statusCode, alone.body).toBe(200)
      expect(split.statusCode, split.body).toBe(200)
      // the grid's tasks, then its verdict on overfitting
      expect(one.mill.stats().completed - doneBefore[0]!).toBe(2)
      expect(two.mill.stats().completed - doneBefore[1]!).toBe(3)
      expect(json(split)).toEqual(json(alone))
      expect(json(split).tried).toBe(2500)
    })
  }
})

describe('the same grid as a job', () => {
  it('runs split, ends succeeded at full progress, and answers what the one-task route answers', async () => {
    const before = two.mill.stats().completed
    const budget = ++budgets
    const res = await two.inject({ method: 'POST', url: '/api/v10/trading/max-edge-signal', payload: { ...request, timeout_ms: budget }, headers: { prefer: 'respond-async' } })
    expect(res.statusCode, res.body).toBe(202)
    let job = json(res)
    for (let i = 0; i < 800 && job.state !== 'succeeded' && job.state !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 25))
      job = json(await two.inject({ url: res.headers.location as string }))
    }
    expect(job.state, JSON.stringify(job)).toBe('succeeded')
    expect(job.progress).toMatchObject({ fraction: 1 })
    expect(two.mill.stats().completed - before).toBe(3)
    const result = json(await two.inject({ url: job.result_url }))
    const alone = json(await ask(one, 'sharpe_ratio', budget))
    expect({ ...result, run_id: null }).toEqual({ ...alone, run_id: null })
  })
})
