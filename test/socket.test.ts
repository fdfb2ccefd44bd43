// Real-socket tests: the envelope, headers and limits over an actual TCP connection (undici), not inject.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { buildTestApp } from './helper.js'

let app: FastifyInstance
let base: string
beforeAll(async () => {
  app = await buildTestApp({ env: { BODY_LIMIT_BYTES: '4096' } })
  base = await app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(async () => app.close())

describe('over a real socket', () => {
  it('GET /api/v1/health answers the envelope with security headers and the request id', async () => {
    const res = await request(`${base}/api/v1/health`, { headers: { 'x-request-id': 'sock-1' } })
    const body = (await res.body.json()) as Record<string, unknown>
    expect(res.statusCode).toBe(200)
    expect(body.surface).toBe('marketing-caller')
    expect(res.headers['x-request-id']).toBe('sock-1')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'")
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.headers['strict-transport-security']).toBeUndefined() // plain HTTP (RFC 6797 §7.2)
  })

  it('refuses an oversized body with 413 in the envelope', async () => {
    const res = await request(`${base}/api/v1/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'surface', input: { pad: 'x'.repeat(64 * 1024 * 1024 / 4) } }),
    })
    const body = (await res.body.json()) as { refuse: { code: string } }
    // /run takes the default body limit (1 MiB): 16 MiB of padding is over it.
    expect(res.statusCode).toBe(413)
    expect(body.refuse.code).toBe('payload_too_large')
  })

  it('answers unknown paths under /api/v1 with the 404 envelope and keeps the connection usable', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(`${base}/api/v1/nowhere/${i}`)
      const body = (await res.body.json()) as { ok: boolean; refuse: { code: string } }
      expect(res.statusCode).toBe(404)
      expect(body.ok).toBe(false)
      expect(body.refuse.code).toBe('not_found')
    }
  })
})
