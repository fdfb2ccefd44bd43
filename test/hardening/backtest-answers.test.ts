// Issue #13: a small anonymous backtest request whose answer is as large as it gets — the curve of a 250k-bar dataset
// at its cap (EQUITY_MAX_POINTS) and the first INLINE_TRADES_MAX of its 27k trades (issue #30 item 4) — over a real
// socket, with a health monitor and the loop's CPU beside it.
// The loop built the curve as tuples and the trades as views with ISO times, took back the result as thousands of
// objects and cloned 12 MB of bars to the mill, each in one stretch that grew with the bars; now the mill writes the
// curve and the trades as JSON text in bytes that move to the loop, taken a part per turn, and reads shared bars.
import { beforeAll, describe, expect, it } from 'vitest'
import { request, type Dispatcher } from 'undici'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { EQUITY_MAX_POINTS, INLINE_TRADES_MAX } from '../../src/engines/trading/answer-caps.js'
import { listeningTestApp } from '../helper.js'
import { storeDataset } from './large-dataset.js'
import { besideHealth, pastStartReport } from './monitor.js'

// Behind a trusted proxy: the sync call comes from another client than the job, so it computes its answer (identical
// submissions of one client share one job, issue #25) and its run is the stored run's repeat.
const host = listeningTestApp({ env: { TRUST_PROXY: 'true' } })

/**
 * CPU of the loop's thread between two turns that no step may reach, from the request to the stored answer (a job,
 * submitted with respond-async and polled) and for a synchronous request (its reply sends the written answer as a
 * stream of encoded parts, the answer writer's part). With the answer writer in, before: 90–130 ms for the whole curve
 * and 27k trades, 40–50 ms for 100k points, either way; after: 10 ms (the /proc clock's tick), 20 now and then.
 * Before the answer writer, 630 ms.
 */

const BARS = 250_000
const LONG = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: BARS })
/** sma_cross(2, 5) on a random walk: a trade every ~9 bars, ~27k of them. */
const MANY_TRADES = { dataset: 'LONG', strategy: 'sma_cross', params: { fast: 2, slow: 5 } }

/** Reads a body's bytes, parsed only when asked (after the loop watch stops: the test's own parse is not the host's). */
async function bytesOf(res: Dispatcher.ResponseData) {
  const chunks: Buffer[] = []
  for await (const chunk of res.body) chunks.push(chunk as Buffer)
  return { status: res.statusCode, json: () => JSON.parse(Buffer.concat(chunks).toString('utf8')) }
}

const backtest = async (body: unknown, headers: Record<string, string> = {}) => bytesOf(await request(`${host.base}/api/v11/trading/backtest`, {
  method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
}))

/** Submits the backtest as a job and waits until its answer is stored; answers where to read it (not read here). */
async function asJob(body: unknown): Promise<string> {
  const submitted = await backtest(body, { prefer: 'respond-async' })
  expect(submitted.status).toBe(202)
  const { url } = submitted.json() as { url: string }
  for (;;) {
    const job = (await (await request(`${host.base}${url}`)).body.json()) as { state: string; result_url: string | null }
    if (job.state === 'succeeded') return job.result_url!
    expect(['queued', 'running']).toContain(job.state)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The answer as a job (then read back) and as a sync call, each with the health monitor and the loop watch beside it. */
async function answerBesideHealth(label: string, body: unknown) {
  const job = await besideHealth(host.base, `${label}, as a job`, () => asJob(body))
  const stored = await bytesOf(await request(`${host.base}${job.value}`))
  const sync = await besideHealth(host.base, `${label}, sync`, () => backtest(body, { 'x-forwarded-for': '198.51.100.77' }))
  expect(job.health.failures + sync.health.failures).toBe(0)
  expect(stored.status).toBe(200)
  expect(sync.value.status).toBe(200)
  const answer = sync.value.json()
  const { run: storedRun, ...storedRest } = stored.json()
  const { run, ...rest } = answer
  expect(storedRest).toEqual(rest)
  expect(run.same_inputs_as_run).toBe(storedRun.id)
  return answer
}

describe('a backtest with a large answer keeps the loop turning', () => {
  beforeAll(async () => {
    await storeDataset(host.app, 'LONG', '15m', LONG)
    await pastStartReport(host.app)
    // The first backtest reads the bars into the cache (its own bounded path) and compiles the code paths.
    expect((await backtest({ ...MANY_TRADES, include: ['equity', 'trades'], equity_points: 1000 })).status).toBe(200)
  }, 120_000)

  it('the 250k-bar curve at its cap and the first trades, the rest paged', async () => {
    for (let round = 0; round < 2; round++) {
      const answer = await answerBesideHealth(`capped curve and trades (${round + 1})`, { ...MANY_TRADES, cash: 1e6 + round, include: ['equity', 'trades'] })
      expect(answer.dataset.bars).toBe(BARS)
      expect(answer.equity.points.length).toBeLessThanOrEqual(EQUITY_MAX_POINTS)
      expect(answer.equity).toMatchObject({ total_points: BARS, downsampled: true })
      expect(answer.equity.points.at(-1)).toEqual([LONG.ts[BARS - 1], answer.stats.equity_final])
      expect(answer.trades).toHaveLength(INLINE_TRADES_MAX)
      expect(answer.trades_total).toBeGreaterThan(20_000)
      expect(answer.trades_next_cursor).toEqual(expect.any(String))
      expect(answer.trades[0].entry_time).toBe(new Date(LONG.ts[answer.trades[0].entry_bar]!).toISOString())
    }
  }, 120_000)

  it('equity points at the cap', async () => {
    for (let round = 0; round < 2; round++) {
      const answer = await answerBesideHealth(`${EQUITY_MAX_POINTS} equity points (${round + 1})`, { ...MANY_TRADES, cash: 2e6 + round, include: ['equity'], equity_points: EQUITY_MAX_POINTS })
      // A bucket keeps its low and its high: one point where the curve is flat (out of the market).
      expect(answer.equity.points.length).toBeLessThanOrEqual(EQUITY_MAX_POINTS)
      expect(answer.equity.points.length).toBeGreaterThan(EQUITY_MAX_POINTS / 2)
      expect(answer.equity.points[0]).toEqual([LONG.ts[0], 2e6 + round])
      expect(answer.equity).toMatchObject({ total_points: BARS, downsampled: true })
      expect(answer.trades).toBeUndefined()
    }
  }, 120_000)
})
