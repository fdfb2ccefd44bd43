// Issue #13: /api/v11/db/stats asked for by many connections at once, over a real socket with health and the loop
// watched. Each answer reads the pragmas, the migrations and a count per table on the loop (~1 ms); the answers of one
// poll of the sockets ran back to back, so a burst of 30 held the loop's CPU 16-19 ms here (20-40 ms on the bench's
// larger database). Each now reads in a turn of its own.
import { beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { burstsBesideHealth } from './bursts.js'
import { keepingBytes, pastStartReport } from './monitor.js'

const host = listeningTestApp()

const PARALLEL = 30
const ROUNDS = 3
const PATH = '/api/v11/db/stats'

describe('db stats from many connections at once', () => {
  beforeAll(() => pastStartReport(host.app), 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: every answer the stats, none holding the loop past the bound`, async () => {
    const first = await keepingBytes(`${host.base}${PATH}`)
    expect(first.status).toBe(200)
    const texts = await burstsBesideHealth(host.base, PATH, ROUNDS, PARALLEL)
    for (const text of texts) expect(JSON.parse(text).tables.length).toBe(first.json().tables.length)
  })
})
