// DNS rebinding over a real socket. A host without ADMIN_TOKEN grants every scope to every request; a page of
// evil.example whose name is rebound to 127.0.0.1 after it loaded is same-origin with the host in its visitor's
// browser. Found: with Host and Origin naming evil.example it pinned content and could delete runs and datasets and
// read every job, while /mcp refused the same origin. An open host now answers only requests addressed to it by an
// address, localhost, HOST or PUBLIC_URL (src/access/host-names.ts, asked by the access plugin before any route).
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { buildTestApp, listeningTestApp } from '../helper.js'

const host = listeningTestApp()

async function send(method: 'GET' | 'POST' | 'DELETE', path: string, hostHeader: string, body?: unknown) {
  const port = new URL(host.base).port
  const res = await request(host.base + path, {
    method,
    headers: {
      host: hostHeader.replace('PORT', port), origin: `http://${hostHeader.replace('PORT', port)}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, text }
}

describe('an open host answers only requests addressed to it by its own names', () => {
  it('refuses every door to a rebound name, before anything is read or written', async () => {
    const before = await host.app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pins')
    const doors = [
      ['POST', '/api/v1/pin', { content: 'rebound' }],
      ['GET', '/api/v1/jobs', undefined],
      ['GET', '/api/v11/runs', undefined],
      ['DELETE', '/api/v11/datasets/1', undefined],
      ['GET', '/api/v1/health', undefined],
      ['GET', '/livez', undefined],
    ] as const
    for (const [method, path, body] of doors) {
      const res = await send(method, path, 'evil.example:PORT', body)
      expect(res.status, `${method} ${path}: ${res.text.slice(0, 200)}`).toBe(403)
      expect(res.text).toMatch(/ADMIN_TOKEN/)
    }
    expect(await host.app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pins')).toEqual(before)
    expect((await request(`${host.base}/api/v11/datasets/1`)).statusCode).toBe(200)
  })

  it('answers its own names: loopback addresses and localhost', async () => {
    for (const name of ['127.0.0.1:PORT', 'localhost:PORT', '[::1]:PORT']) {
      const res = await send('POST', '/api/v1/pin', name, { content: `own name ${name}` })
      expect(res.status, `${name}: ${res.text.slice(0, 200)}`).toBe(200)
    }
  })

  it('a host with ADMIN_TOKEN (behind a proxy, any name) is not held to it: its credential is the door', async () => {
    const secured = await buildTestApp({ env: { ADMIN_TOKEN: 'rebinding-admin-token-0123456789' } })
    try {
      const res = await secured.inject({ method: 'GET', url: '/api/v11/runs', headers: { host: 'hub.example.org' } })
      expect(res.statusCode).toBe(200)
    } finally {
      await secured.close()
    }
  })
})
