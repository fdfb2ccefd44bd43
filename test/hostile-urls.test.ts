// Issue #13 items 5 and 6 over a real socket: malformed URLs answer in each surface's format, and every request, matched
// or not, counts toward the client's quota while 404 logging stays short.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { anyEnvelope } from '../src/http/envelope.js'
import { buildApp } from '../src/app.js'
import { testConfig } from './helper.js'

const QUOTA = 40
let app: FastifyInstance
let base: string
const logLines: string[] = []

/** (Re)starts the host: a fresh limiter window, logs captured in logLines. */
async function startHost(rateLimitPerMin: number) {
  if (app) await app.close()
  app = await buildApp({
    config: testConfig({ RATE_LIMIT_PER_MIN: String(rateLimitPerMin), LOG_LEVEL: 'info' }),
    tradingSeed: 'small',
    logStream: { write: (line) => { logLines.push(line) } },
  })
  base = await app.listen({ host: '127.0.0.1', port: 0 })
}

beforeAll(async () => startHost(QUOTA))
afterAll(async () => app.close())

async function get(path: string, clientId: string) {
  const res = await request(base + path, { headers: { 'x-request-id': clientId } })
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() }
}

describe('malformed URLs (item 5)', () => {
  it('/api/v1/%zz answers a refusal envelope with the security headers and the request id', async () => {
    const res = await get('/api/v1/%zz', 'bad-url-1')
    expect(res.status).toBe(400)
    const body = JSON.parse(res.text)
    expect(anyEnvelope.safeParse(body).success, res.text).toBe(true)
    expect(body.refuse.code).toBe('invalid_input')
    expect(body.refuse.http_status).toBe(400)
    expect(res.text).not.toContain('FST_ERR')
    expect(res.headers['x-request-id']).toBe('bad-url-1')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'")
    expect(res.headers['x-ratelimit-limit']).toBe(String(QUOTA)) // seen by the limiter
  })

  it.each(['/api/v11/%zz', '/%zz', '/command-center/%E0%A4%A'])('%s answers application/problem+json', async (path) => {
    const res = await get(path, 'bad-url-2')
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const problem = JSON.parse(res.text)
    expect(problem).toMatchObject({ status: 400, code: 'invalid_input', type: 'urn:ncm-hub:problem:invalid-input' })
    expect(res.headers['x-request-id']).toBe('bad-url-2')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['x-ratelimit-limit']).toBe(String(QUOTA))
  })
})

describe('unmatched routes (item 6)', () => {
  it('count toward the quota: past it, unknown paths and malformed URLs are refused with 429 in each format', async () => {
    await startHost(QUOTA)
    const paths = ['/nowhere', '/api/v1/nowhere', '/api/v11/nowhere', '/api/v1/%zz']
    const statuses: number[] = []
    for (let i = 0; i < QUOTA + 12; i++) statuses.push((await get(paths[i % paths.length]! + (i % 4 === 3 ? '' : `/${i}`), `flood-${i}`)).status)
    expect(statuses.slice(0, QUOTA).every((s) => s === 404 || s === 400)).toBe(true)
    expect(statuses.slice(QUOTA)).toEqual(Array(12).fill(429))
    const caller = await get('/api/v1/nowhere/again', 'flood-end')
    expect(caller.status).toBe(429)
    expect(JSON.parse(caller.text).refuse.code).toBe('rate_limited')
    const trading = await get('/api/v11/nowhere/again', 'flood-end')
    expect(trading.status).toBe(429)
    expect(JSON.parse(trading.text).code).toBe('rate_limited')
    const badUrl = await get('/api/v1/%zz', 'flood-end')
    expect(badUrl.status).toBe(429)
    expect(JSON.parse(badUrl.text).refuse.code).toBe('rate_limited')
  })

  it('log a short line for an 8 KB unknown path, not the path twice', async () => {
    await startHost(0)
    logLines.length = 0
    for (const prefix of ['/', '/api/v1/', '/api/v11/']) {
      const res = await get(prefix + 'x'.repeat(8 * 1024), 'long-404')
      expect(res.status).toBe(404)
      expect(res.text.length).toBeLessThan(1024) // the body repeats at most a shortened path too
    }
    expect(logLines.length).toBeGreaterThan(0)
    for (const line of logLines) expect(line.length, line.slice(0, 200)).toBeLessThan(1024)
  })
})
