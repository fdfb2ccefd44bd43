// Issue #13: one client cannot hold an unbounded number of job event streams. Over SSE_STREAMS_PER_CLIENT it is refused
// over_limit with Retry-After before the stream opens, on either surface (one count behind both); a closed stream gives
// its slot back.
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
import { listeningTestApp } from '../helper.js'

const host = listeningTestApp({ env: { SSE_STREAMS_PER_CLIENT: '2' } })

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((r) => setTimeout(r, 20))
}

describe('job event streams per client', () => {
  it('refuses the stream past the cap before opening it, and takes a new one once a stream closes', async () => {
    // PHP(12, 11) runs far longer than the test: the job stays running while streams are held.
    const submitted = await request(`${host.base}/api/v1/sat`, {
      method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ dimacs: pigeonholeDimacs(12), want_model: false, timeout_ms: 60_000 }),
    })
    const job = ((await submitted.body.json()) as { data: { id: string } }).data
    expect(submitted.statusCode).toBe(202)
    const events = (surface: string) => request(`${host.base}${surface}/jobs/${job.id}/events`)

    const first = await events('/api/v1')
    const second = await events('/api/v11')
    expect([first.statusCode, second.statusCode]).toEqual([200, 200])
    expect(host.app.jobStreams.open()).toBe(2)

    const caller = await events('/api/v1')
    expect(caller.statusCode).toBe(422)
    expect(caller.headers['retry-after']).toBe('5')
    const refusal = ((await caller.body.json()) as { refuse: { code: string; hints: unknown } }).refuse
    expect(refusal.code).toBe('over_limit')
    expect(refusal.hints).toEqual({ limit: 'SSE_STREAMS_PER_CLIENT', value: 2 })
    const trading = await events('/api/v11')
    expect(trading.statusCode).toBe(422)
    expect(trading.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(((await trading.body.json()) as { code: string }).code).toBe('over_limit')
    expect(host.app.jobStreams.open()).toBe(2)

    first.body.destroy()
    await until(() => host.app.jobStreams.open() === 1)
    const again = await events('/api/v1')
    expect(again.statusCode).toBe(200)

    // Cancelling ends both streams with their final event; their slots are given back.
    await request(`${host.base}/api/v1/jobs/${job.id}`, { method: 'DELETE' }).then((res) => res.body.dump())
    await Promise.all([second.body.text(), again.body.text()])
    await until(() => host.app.jobStreams.open() === 0)
  })
})
