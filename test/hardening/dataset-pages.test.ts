// Issue #13: a dataset's 500-bar page asked for by many connections at once, over a real socket with health and the
// loop watched. Each answer read its bars and serialised ~60 KB of JSON in one go, ~2 ms; the answers of one poll of the
// sockets ran back to back, so a burst of 30 held the loop's CPU 50-70 ms. A page of more than a few KiB is now
// written in the mill (issue #30), and each read reserves 1 MiB of the memory admission
// (src/plugins/memory-admission.ts): a page is bounded, so a burst of 30 from one client fits its share of memory. Its
// share of the mill (JOBS_PER_CLIENT) is raised here so the whole burst is served; past it a read is refused occupied.
import { beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { burstsBesideHealth } from './bursts.js'
import { keepingBytes, pastStartReport } from './monitor.js'

const host = listeningTestApp({ env: { JOBS_PER_CLIENT: '64' } })

const PARALLEL = 30
const ROUNDS = 3
const PAGE = '/api/v11/datasets/SYN-DAILY?limit=500'

describe('a 500-bar dataset page from many connections at once', () => {
  beforeAll(() => pastStartReport(host.app), 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: the same page each time, none holding the loop past the bound`, async () => {
    const first = await keepingBytes(`${host.base}${PAGE}`)
    expect(first.status).toBe(200)
    expect(first.json().bars).toHaveLength(500)
    const texts = await burstsBesideHealth(host.base, PAGE, ROUNDS, PARALLEL)
    expect(texts).toEqual([first.bytes().toString()])
  })

  it('a page written in the mill is the page written on the loop: its first bars, and each bar as stored', async () => {
    const large = (await keepingBytes(`${host.base}${PAGE}`)).json()
    const small = (await keepingBytes(`${host.base}/api/v11/datasets/SYN-DAILY?limit=100`)).json()
    expect(large.bars.slice(0, 100)).toEqual(small.bars)
    const rows = await host.app.store.sql.all<{ ts: number; open: number; high: number; low: number; close: number; volume: number }>(
      'SELECT b.ts, b.open, b.high, b.low, b.close, b.volume FROM bars b JOIN datasets d ON d.id = b.dataset_id WHERE d.symbol = ? ORDER BY b.ts LIMIT 500', ['SYN-DAILY'])
    expect(large.bars).toEqual(rows.map((b) => ({ ...b, time: new Date(b.ts).toISOString() })))
  })
})
