// Issue #13: /api/v11/db/stats asked for by many connections at once, over a real socket with health and the loop
// watched. Each answer reads the pragmas, the migrations and a count per table on the loop (~1 ms); the answers of one
// poll of the sockets ran back to back, so a burst of 30 held the loop's CPU 16-19 ms here (20-40 ms on the bench's
// larger database). Each now reads in a turn of its own.
import { beforeAll, describe, expect, it } from 'vitest'
import { START_REPORT_DELAY_MS } from '../../src/admin/collectors.js'
import { listeningTestApp } from '../helper.js'
import { burstsFromAnotherProcess } from './bursts.js'
import { besideHealth, keepingBytes } from './monitor.js'

const host = listeningTestApp()

/** CPU of the loop's thread between two turns that no burst may reach (before, on this database: 16-19 ms; after: 5-6). */
const STRETCH_BOUND_MS = 12
const PARALLEL = 30
const ROUNDS = 3
const PATH = '/api/v11/db/stats'

describe('db stats from many connections at once', () => {
  beforeAll(async () => {
    await new Promise((resolve) => setTimeout(resolve, START_REPORT_DELAY_MS + 500))
    await host.app.adminCollectors.readiness.report({ smoke: false })
  }, 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: every answer the stats, none holding the loop past the bound`, async () => {
    const first = await keepingBytes(`${host.base}${PATH}`)
    expect(first.status).toBe(200)
    const { value: seen, health, stretch } = await besideHealth(host.base, `${ROUNDS} × ${PARALLEL} parallel ${PATH}`,
      () => burstsFromAnotherProcess(`${host.base}${PATH}`, ROUNDS, PARALLEL))
    expect(stretch.maxCpuMs).toBeLessThan(STRETCH_BOUND_MS)
    expect(seen.failed).toBe(0)
    for (const text of seen.texts) expect(JSON.parse(text).tables.length).toBe(first.json().tables.length)
    expect(health.failures).toBe(0)
  })
})
