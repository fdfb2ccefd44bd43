// Behind the nginx of the deployment (TRUST_PROXY=true), X-Forwarded-For reaches the host as "<what the client sent>,
// <the address nginx saw>": nginx appends. Found over a real socket: the host trusted every hop and took the leftmost
// entry, so any client chose its own client key — a fresh rate-limit bucket and share per request, or another anonymous
// client's key, and with it that client's jobs (read, result, cancel). TRUST_PROXY now counts the proxies in front
// (true is one): the client is the address the outermost trusted proxy saw.
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { loadConfig } from '../../src/config.js'

const host = listeningTestApp({ env: { TRUST_PROXY: 'true', RATE_LIMIT_PER_MIN: '5', ADMIN_TOKEN: 'forwarded-admin-token-0123456789', HEAVY_ACCESS: 'open' } })

/** A request as nginx forwards it: the client's own X-Forwarded-For, then the address nginx saw. */
async function viaProxy(method: 'GET' | 'POST', path: string, claimed: string | null, seen: string, body?: unknown) {
  const res = await request(host.base + path, {
    method,
    headers: {
      'x-forwarded-for': claimed === null ? seen : `${claimed}, ${seen}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json', prefer: 'respond-async' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, json: text.startsWith('{') ? JSON.parse(text) : null }
}

describe('the client behind a trusted proxy is the address the proxy saw', () => {
  it('a client that writes a new X-Forwarded-For each time is still one client to the rate limit', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) statuses.push((await viaProxy('GET', '/api/v1/health', `198.51.100.${i + 1}`, '192.0.2.10')).status)
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200])
    expect(statuses.slice(5)).toEqual([429, 429, 429])
  })

  it("a client that claims another's address owns none of its jobs", async () => {
    const submitted = await viaProxy('POST', '/api/v1/sat', null, '192.0.2.20', { dimacs: 'p cnf 1 1\n1 0\n' })
    expect(submitted.status).toBe(202)
    const id = submitted.json.data.id as string
    expect((await viaProxy('GET', `/api/v1/jobs/${id}`, null, '192.0.2.20')).status).toBe(200)
    // The attacker writes the victim's address first; nginx appends the attacker's own.
    expect((await viaProxy('GET', `/api/v1/jobs/${id}`, '192.0.2.20', '192.0.2.66')).status).toBe(404)
    expect((await viaProxy('GET', `/api/v1/jobs/${id}/result`, '192.0.2.20', '192.0.2.67')).status).toBe(404)
  })

  it('TRUST_PROXY counts proxies: true is one, a digit is that many, false none', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1)
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2)
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(0)
    expect(loadConfig({}).trustProxy).toBe(0)
    expect(() => loadConfig({ TRUST_PROXY: 'all' })).toThrow(/TRUST_PROXY/)
  })
})
