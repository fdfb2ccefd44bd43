// Run owners over a real socket: behind a trusted proxy each forwarded address is an anonymous principal of its own
// (its client key), so one client's run answers another 404 on the wire exactly as an unknown id, and each lists its own.
import { beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from './helper.js'

const host = listeningTestApp({ env: { ADMIN_TOKEN: 'run-owners-socket-admin-0123456789', HEAVY_ACCESS: 'open', TRUST_PROXY: 'true' } })
beforeAll(() => {
  host.app.admission.override('live-bound')
})

async function send(from: string, method: 'GET' | 'POST', path: string, body?: object) {
  const res = await request(`${host.base}${path}`, {
    method, headers: { 'x-forwarded-for': from, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
  })
  return { status: res.statusCode, body: (await res.body.json()) as any }
}

describe('runs of anonymous clients over a real socket', () => {
  it('keeps one forwarded address\'s run from another, which hears of it as of no run', async () => {
    const stored = await send('203.0.113.10', 'POST', '/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 } })
    expect(stored.status).toBe(200)
    const id = stored.body.run.id as number
    expect((await send('203.0.113.10', 'GET', `/api/v11/runs/${id}/trades?limit=2`)).status).toBe(200)
    const foreign = await send('203.0.113.11', 'GET', `/api/v11/runs/${id}/trades?limit=2`)
    const unknown = await send('203.0.113.11', 'GET', `/api/v11/runs/${id + 1000}/trades?limit=2`)
    expect(foreign.status).toBe(404)
    expect({ ...foreign.body, detail: foreign.body.detail.replace(String(id), 'N'), instance: null })
      .toEqual({ ...unknown.body, detail: unknown.body.detail.replace(String(id + 1000), 'N'), instance: null })
    expect((await send('203.0.113.10', 'GET', '/api/v11/runs')).body.runs.map((r: { id: number }) => r.id)).toEqual([id])
    expect((await send('203.0.113.11', 'GET', '/api/v11/runs')).body.runs).toEqual([])
  })
})
