// Issue #13 item 10 over a real socket: with ADMIN_TOKEN set, writes to the store beyond a run's own record need scope
// trading:write, and the refusal names it. A backtest (which stores only its own run) is heavy work: scope run:heavy, as on
// every other door (issue #25 item 9), not trading:write.
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from './helper.js'

const ADMIN_TOKEN = 'h13b-admin-token-0123456789'

const host = listeningTestApp({ env: { ADMIN_TOKEN } })

async function send(method: 'POST' | 'DELETE', path: string, body: unknown, token?: string) {
  const res = await request(host.base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, contentType: String(res.headers['content-type']), json: text ? JSON.parse(text) : null }
}

async function grant(scopes: string[]): Promise<string> {
  const res = await send('POST', '/api/v1/grant', { subject: `test-${scopes.join('+') || 'none'}`, scopes, ttl_s: 600 }, ADMIN_TOKEN)
  expect(res.status, JSON.stringify(res.json)).toBe(200)
  return res.json.data.token as string
}

const orders = async () => (await host.app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM orders'))!.n
const CYCLE = { dataset: 'SYN-DAILY', strategy: 'buy_and_hold', account: 'scoped' }
const CSV = { symbol: 'SCOPED', timeframe: '1d', csv: 'Date,Open,High,Low,Close,Volume\n2024-01-01,1,2,0.5,1.5,10\n2024-01-02,1.5,2,1,1.8,12\n' }

describe('trading:write (item 10)', () => {
  it('an anonymous paper full cycle is refused with 401 naming the scope, and no order is placed', async () => {
    const before = (await orders())
    const res = await send('POST', '/api/v11/trading/full-cycle', CYCLE)
    expect(res.status).toBe(401)
    expect(res.contentType).toMatch(/^application\/problem\+json/)
    expect(res.json.code).toBe('unauthorized')
    expect(res.json.detail).toContain('trading:write')
    expect((await orders())).toBe(before)
  })

  it('a grant without the scope is refused with 403 naming it; a grant with it places the order', async () => {
    const before = (await orders())
    const pinOnly = await send('POST', '/api/v11/trading/full-cycle', CYCLE, await grant(['pin:write']))
    expect(pinOnly.status).toBe(403)
    expect(pinOnly.json.code).toBe('forbidden')
    expect(pinOnly.json.detail).toContain('trading:write')
    expect((await orders())).toBe(before)
    const allowed = await send('POST', '/api/v11/trading/full-cycle', CYCLE, await grant(['trading:write']))
    expect(allowed.status, JSON.stringify(allowed.json)).toBe(201)
    expect((await orders())).toBe(before + 1)
  })

  it('dataset import and delete need the scope too', async () => {
    const anonymous = await send('POST', '/api/v11/datasets', CSV)
    expect(anonymous.status).toBe(401)
    expect(anonymous.json.detail).toContain('trading:write')
    const writer = await grant(['trading:write'])
    const imported = await send('POST', '/api/v11/datasets', CSV, writer)
    expect(imported.status, JSON.stringify(imported.json)).toBe(201)
    const removal = await send('DELETE', `/api/v11/datasets/${imported.json.id}`, undefined)
    expect(removal.status).toBe(401)
    expect(removal.json.detail).toContain('trading:write')
  })

  it('a backtest, which stores only its own run, needs run:heavy (heavy work), not trading:write', async () => {
    const body = { dataset: 'SYN-DAILY', strategy: 'buy_and_hold' }
    const anonymous = await send('POST', '/api/v11/trading/backtest', body)
    expect(anonymous.status).toBe(401)
    expect(anonymous.json.detail).toMatch(/run:heavy/)
    expect((await send('POST', '/api/v11/trading/backtest', body, await grant(['trading:write']))).status).toBe(403)
    const res = await send('POST', '/api/v11/trading/backtest', body, await grant(['run:heavy']))
    expect(res.status, JSON.stringify(res.json)).toBe(200)
  })
})
