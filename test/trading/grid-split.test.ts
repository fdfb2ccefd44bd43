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

describe('POST /api/v10/trading/max-edge-signal on several workers', () => {
  for (const maximize of ['sharpe_ratio', 'win_rate_pct', 'sqn'] as const) {
    it(`answers the same as one task, field for field (maximize ${maximize})`, async () => {
      const ask = (app: FastifyInstance) => app.inject({ method: 'POST', url: '/api/v10/trading/max-edge-signal', payload: { ...request, maximize } })
      const doneBefore = [one.mill.stats().completed, two.mill.stats().completed]
      const [alone, split] = await Promise.all([ask(one), ask(two)])
      expect(alone.statusCode, alone.body).toBe(200)
      expect(split.statusCode, split.body).toBe(200)
      expect(one.mill.stats().completed - doneBefore[0]!).toBe(1)
      expect(two.mill.stats().completed - doneBefore[1]!).toBe(2)
      expect(json(split)).toEqual(json(alone))
      expect(json(split).tried).toBe(2500)
    })
  }
})
