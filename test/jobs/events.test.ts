// Jobs over a real socket: the SSE stream read by undici to its final event, Last-Event-ID resume, and the cancel of
// a running walk-forward search (the engine polls the flag; a worker that does not stop is replaced).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { buildTestApp } from '../helper.js'
import { readEvents } from '../sse.js'

let app: FastifyInstance
let base: string

beforeAll(async () => {
  // The full seed: its 100k-bar intraday series makes a search long enough to be caught running.
  app = await buildTestApp({ tradingSeed: 'full' })
  base = await app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(async () => app.close())

async function submit(path: string, body: unknown): Promise<any> {
  const res = await request(`${base}${path}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', prefer: 'respond-async' },
  })
  const answer = await res.body.json()
  expect(res.statusCode, JSON.stringify(answer)).toBe(202)
  return answer
}

async function biggestDataset(): Promise<string> {
  const { datasets } = await (await request(`${base}/api/v11/datasets`)).body.json() as { datasets: Array<{ symbol: string; rows: number }> }
  return [...datasets].sort((a, b) => b.rows - a.rows)[0]!.symbol
}

// sma_cross over 39 × 30 pairs on 100k bars: 1,170 configurations, seconds of work.
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const searchBody = (dataset: string) => ({
  dataset, strategies: ['sma_cross'], grid: { sma_cross: { fast: range(2, 40), slow: range(60, 89) } }, timeout_ms: 60_000,
})

describe('GET …/jobs/{id}/events', () => {
  it('streams progress, then one final event with the result; undici reads it to the end', async () => {
    const dataset = await biggestDataset()
    const job = await submit('/api/v11/trading/simulate', { dataset, strategy: 'sma_cross', paths: 400, horizon: 100, seed: 7 })
    const res = await request(`${base}/api/v11/jobs/${job.id}/events`)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/)
    expect(res.headers['x-accel-buffering']).toBe('no')
    const { events } = await readEvents(res.body)
    const final = events[events.length - 1]!
    expect(final.event).toBe('succeeded')
    expect(final.id).toBe('final')
    expect(final.data.job.state).toBe('succeeded')
    expect(final.data.result.paths).toBe(400)
    expect(events.slice(0, -1).every((e) => e.event === 'progress')).toBe(true)
    const fractions = events.map((e) => e.data.job.progress.fraction).filter((f): f is number => typeof f === 'number')
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
    // The stored answer is the one the stream carried.
    const result = await (await request(`${base}${final.data.job.result_url}`)).body.json()
    expect(result).toEqual(final.data.result)
  })

  it('carries a large answer (a 100k-variable model: several written parts) whole in its final event, as stored', async () => {
    const job = await submit('/api/v1/sat', { dimacs: 'p cnf 100000 1\n1 0\n' })
    const res = await request(`${base}/api/v1/jobs/${job.data.id}/events`)
    const { events } = await readEvents(res.body)
    const final = events[events.length - 1]!
    expect(final.event).toBe('succeeded')
    expect(final.data.result.model).toHaveLength(100_000)
    const stored = await (await request(`${base}${final.data.job.result_url}`)).body.text()
    expect(stored.length).toBeGreaterThan(512 * 1024) // more than one part
    expect(JSON.parse(stored).data).toEqual(final.data.result)
  })

  it('a reconnect after the final event answers 204 (EventSource stops); before it, the latest state comes first', async () => {
    const job = await submit('/api/v1/sat', { dimacs: 'p cnf 2 1\n1 2 0\n' })
    const first = await request(`${base}/api/v1/jobs/${job.data.id}/events`)
    const { events } = await readEvents(first.body)
    expect(events[events.length - 1]!.event).toBe('succeeded')
    const again = await request(`${base}/api/v1/jobs/${job.data.id}/events`, { headers: { 'last-event-id': 'final' } })
    expect(again.statusCode).toBe(204)
    await again.body.dump()
    const resumed = await request(`${base}/api/v1/jobs/${job.data.id}/events`, { headers: { 'last-event-id': '3' } })
    const replay = await readEvents(resumed.body)
    expect(replay.events.map((e) => e.event)).toEqual(['succeeded'])
  })
})

describe('DELETE …/jobs/{id}', () => {
  it('cancels a running walk-forward search: the job ends cancelled, no run is stored', async () => {
    const dataset = await biggestDataset()
    const runsBefore = (await app.inject({ url: '/api/v11/runs?limit=500' })).json()
    const job = await submit('/api/v11/trading/max-edge-signal', searchBody(dataset))
    const stream = await request(`${base}/api/v11/jobs/${job.id}/events`)
    let cancelAsked = 0
    let cancelAnswer: Promise<any> | null = null
    const { events } = await readEvents(stream.body, (e) => {
      const counters = e.data.job.progress.counters
      if (!cancelAnswer && e.event === 'progress' && e.data.job.state === 'running' && (counters.configs_done ?? 0) > 0) {
        cancelAsked = performance.now()
        cancelAnswer = request(`${base}/api/v11/jobs/${job.id}`, { method: 'DELETE' }).then(async (r) => ({ status: r.statusCode, body: await r.body.json() }))
      }
    })
    const final = events[events.length - 1]!
    const cancelledAfterMs = performance.now() - cancelAsked
    expect(cancelAnswer).not.toBeNull()
    const answer = await cancelAnswer!
    expect(final.event).toBe('cancelled')
    expect([200, 202]).toContain(answer.status)
    const progress = final.data.job.progress
    expect(progress.counters.configs_done).toBeLessThan(progress.counters.configs_total)
    console.log(`walk-forward cancelled ${cancelledAfterMs.toFixed(0)} ms after DELETE was sent, at ${progress.counters.configs_done}/${progress.counters.configs_total} configurations`)
    // Nothing half-written: the search stored no run.
    const runsAfter = (await app.inject({ url: '/api/v11/runs?limit=500' })).json()
    expect(JSON.stringify(runsAfter.runs?.length)).toBe(JSON.stringify(runsBefore.runs?.length))
    const result = await request(`${base}/api/v11/jobs/${job.id}/result`)
    expect(result.statusCode).toBe(409)
    await result.body.dump()
  })

  it('cancels a queued job at once', async () => {
    const dataset = await biggestDataset()
    const running = await submit('/api/v11/trading/max-edge-signal', searchBody(dataset))
    const queued = await submit('/api/v11/trading/max-edge-signal', { ...searchBody(dataset), step: 7 })
    const res = await request(`${base}/api/v11/jobs/${queued.id}`, { method: 'DELETE' })
    const body = await res.body.json() as any
    expect(body.state).toBe('cancelled')
    expect(body.started_at).toBeNull()
    // A running job answers 200 once it stopped, or 202 while its worker is still being stopped (a loaded machine).
    const stop = await request(`${base}/api/v11/jobs/${running.id}`, { method: 'DELETE' })
    const stopped = (await stop.body.json()) as any
    expect(stop.statusCode === 200 ? stopped.state : 'cancelled').toBe('cancelled')
    const final = await readEvents((await request(`${base}/api/v11/jobs/${running.id}/events`)).body)
    expect(final.events[final.events.length - 1]!.event).toBe('cancelled')
  })
})
