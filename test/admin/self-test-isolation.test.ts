// The known-answer self-tests run in a throwaway host: after the start run and a rerun, nothing of theirs (the
// NCM-TRUTH dataset, its backtest runs) is in the user's store, its listings, the inventory or the command center.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json, okData } from '../helper.js'
import { START_REPORT_DELAY_MS } from '../../src/admin/api.js'
import { TRUTH_DATASET } from '../../src/admin/truth-cases.js'

const TRUTH = '/api/v1/admin/truth/summary'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('self-tests and the user\'s data', () => {
  let app: FastifyInstance
  let runsBefore: number
  beforeAll(async () => {
    app = await buildTestApp()
    runsBefore = (await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM runs'))!.n
    // A real start: the known-answer tests run by themselves shortly after the server listens.
    await app.listen({ host: '127.0.0.1', port: 0 })
    await sleep(START_REPORT_DELAY_MS + 200)
  })
  afterAll(async () => {
    await app.close()
  })

  it('runs at start and on ?rerun=1, passing, in a throwaway host', async () => {
    const start = okData(await app.inject(TRUTH))
    expect(start.trigger).toBe('start')
    const rerun = okData(await app.inject(`${TRUTH}?rerun=1`))
    expect(rerun.trigger).toBe('rerun')
    for (const run of [start, rerun]) {
      expect(run.failed).toBe(0)
      expect(run.sandbox).toMatch(/throwaway host/)
      const backtest = run.tests.find((t: any) => t.name.startsWith('backtest'))
      expect(backtest, JSON.stringify(backtest)).toMatchObject({ status: 'pass' })
    }
  })

  it('leaves no self-test row in the store, the listings, the inventory or the command center', async () => {
    const { symbol } = TRUTH_DATASET
    expect(await app.store.sql.get('SELECT count(*) AS n FROM datasets WHERE symbol = ?', [symbol])).toEqual({ n: 0 })
    expect(await app.store.sql.get('SELECT count(*) AS n FROM runs')).toEqual({ n: runsBefore })
    const pages = [
      '/api/v10/datasets',
      '/api/v11/datasets?limit=500',
      '/api/v11/runs?limit=500',
      '/api/v11/system/inventory',
      '/api/v6/command-center/panels',
      '/command-center',
    ]
    for (const url of pages) {
      const res = await app.inject(url)
      expect(res.statusCode, url).toBe(200)
      expect(res.body, url).not.toContain(symbol)
    }
    const inventory = okData(await app.inject('/api/v1/inventory'))
    expect(JSON.stringify(inventory)).not.toContain(symbol)
    expect(json(await app.inject('/api/v11/runs?limit=500')).runs).toHaveLength(runsBefore)
  })
})
