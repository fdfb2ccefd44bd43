// What a new user hits in the first hour: cache-busting query parameters, /ops filters, /help curl lines addressed to
// this host, refusals by design apart from faults in the metrics, 405 with Allow, 431 in the surface's format,
// validation messages that name the field, and /chat's 501 whatever the body.
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { anyEnvelope } from '../src/http/envelope.js'
import { buildTestApp, expectRefusal, json, okData } from './helper.js'

describe('first-hour behaviour', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
  })
  afterAll(async () => {
    await app.close()
  })

  it('ignores unknown query parameters on GET routes, still checks known ones', async () => {
    for (const url of ['/api/v1/health?x=1', '/api/v1/captions?_=123&utm_source=x', '/api/v1/admin/truth/summary?x=1', '/api/v11/datasets?x=1', '/health?x=1']) {
      expect((await app.inject(url)).statusCode, url).toBe(200)
    }
    const refusal = expectRefusal(await app.inject('/api/v1/ops?lobe=nope'), 'invalid_input', 400)
    expect(refusal.issues[0]).toMatchObject({ path: 'lobe', message: expect.stringMatching(/^expected one of .*"logic"/) })
  })

  it('/ops?lobe=logic keeps only the logic operations', async () => {
    const all = okData(await app.inject('/api/v1/ops'))
    const logic = okData(await app.inject('/api/v1/ops?lobe=logic'))
    const expected = all.operations.filter((op: any) => op.lobe === 'logic')
    expect(expected.length).toBeGreaterThan(0)
    expect(logic.count).toBe(expected.length)
    expect(logic.operations).toEqual(expected)
  })

  it('/help curl lines are addressed to the host the request came to', async () => {
    // An open host answers its own names only (test/access/rebinding.test.ts): an address it is reached at.
    const help = okData(await app.inject({ url: '/api/v1/help', headers: { host: '10.1.2.3:9000' } }))
    for (const op of help.operations) expect(op.curl).toContain(`'http://10.1.2.3:9000${op.path}`)
    expect(JSON.stringify(help)).not.toContain('127.0.0.1:8000')
    // A Host that is not a plain name and port is never echoed.
    const odd = await app.inject({ url: '/api/v1/help', headers: { host: 'x.example/evil?' } })
    expect(odd.statusCode).toBe(403)
    expect(odd.body).not.toContain('evil')
  })

  it('counts 501 and 503 refusals with the refusals, not as server errors; percentiles stay under the maximum', async () => {
    const before = okData(await app.inject('/api/v1/admin/command-post/summary')).requests.by_surface.caller
    expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/chat', payload: {} }), 'token_completion_unavailable', 501)
    app.admission.override('shedding')
    try {
      expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { dimacs: 'p cnf 1 1\n1 0\n' } }), 'occupied', 503)
    } finally {
      app.admission.override(null)
    }
    const after = okData(await app.inject('/api/v1/admin/command-post/summary'))
    const caller = after.requests.by_surface.caller
    expect(caller.server_errors).toBe(before.server_errors)
    expect(caller.refusals).toBe(before.refusals + 2)
    for (const latency of [after.latency, caller.latency]) expect(latency.p99_ms).toBeLessThanOrEqual(latency.max_ms)
    const metrics = (await app.inject('/metrics')).body
    expect(metrics).toMatch(/ncm_http_error_ratio 0\n/)
  })

  it('a wrong method on a known path is 405 with Allow: an envelope under /api/v1, problem+json elsewhere', async () => {
    const caller = await app.inject({ method: 'DELETE', url: '/api/v1/health' })
    expect(caller.headers.allow).toBe('GET, HEAD')
    expectRefusal(caller, 'method_not_allowed', 405)
    const sat = await app.inject({ method: 'GET', url: '/api/v1/sat' })
    expect(sat.headers.allow).toBe('POST')
    expectRefusal(sat, 'method_not_allowed', 405)
    for (const [method, url, allow] of [['POST', '/health', 'GET, HEAD'], ['PUT', '/api/v11/runs/12', 'DELETE, GET, HEAD']] as const) {
      const res = await app.inject({ method, url })
      expect(res.statusCode, url).toBe(405)
      expect(res.headers.allow).toBe(allow)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(json(res)).toMatchObject({ status: 405, code: 'method_not_allowed' })
    }
    expectRefusal(await app.inject('/api/v1/no-such-op'), 'not_found', 404)
    expect((await app.inject({ method: 'DELETE', url: '/no/such/path' })).statusCode).toBe(404)
  })

  it('validation messages name the field and what was expected, never "(root): Invalid input"', async () => {
    const backtest = await app.inject({ method: 'POST', url: '/api/v11/trading/backtest', payload: {} })
    expect(backtest.statusCode).toBe(400)
    expect(json(backtest).errors).toContainEqual({ path: 'dataset', message: 'required (number or string)' })
    const sat = expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/sat', payload: {} }), 'invalid_input', 400)
    expect(sat.issues).toEqual([{ path: 'dimacs', message: 'required (string)' }])
    const extra = expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/digest', payload: { content: 'x', zzz: 1 } }), 'invalid_input', 400)
    expect(extra.issues).toEqual([{ path: 'zzz', message: 'unknown field' }])
    const scalar = expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/digest', payload: '5', headers: { 'content-type': 'application/json' } }), 'invalid_input', 400)
    expect(scalar.issues).toEqual([{ path: 'body', message: 'expected object, received number' }])
    for (const body of [backtest.body, JSON.stringify(sat), JSON.stringify(extra), JSON.stringify(scalar)]) {
      expect(body).not.toContain('(root)')
      expect(body).not.toMatch(/"message":"Invalid input"/)
    }
  })

  it('/chat refuses with 501 whatever the body: invalid JSON, empty, another content type, none', async () => {
    const bodies = [
      { payload: '{bad', headers: { 'content-type': 'application/json' } },
      { payload: '', headers: { 'content-type': 'application/json' } },
      { payload: 'hello', headers: { 'content-type': 'text/plain' } },
      { payload: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'application/json' } },
      {},
    ]
    for (const body of bodies) expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/chat', ...body }), 'token_completion_unavailable', 501)
  })
})

describe('the host address and the parser\'s own refusals', () => {
  it('/help uses PUBLIC_URL when it is set', async () => {
    const app = await buildTestApp({ env: { PUBLIC_URL: 'https://ncm.example/hub/' } })
    try {
      const help = okData(await app.inject({ url: '/api/v1/help', headers: { host: '10.0.0.9:8000' } }))
      expect(help.operations[0].curl).toContain("'https://ncm.example/hub/api/v1/")
      expect(JSON.stringify(help)).not.toContain('10.0.0.9:8000')
    } finally {
      await app.close()
    }
  })

  it('headers over 16 KiB get 431: an envelope under /api/v1, problem+json elsewhere', async () => {
    const app = await buildTestApp()
    try {
      const base = new URL(await app.listen({ host: '127.0.0.1', port: 0 }))
      const send = (path: string) => new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: base.hostname, port: base.port, path, headers: { 'x-big': 'a'.repeat(20_000) } }, (res) => {
          let body = ''
          res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }))
        })
        req.on('error', reject).end()
      })
      const caller = await send('/api/v1/health')
      expect(caller.status).toBe(431)
      const envelope = anyEnvelope.parse(JSON.parse(caller.body))
      expect(envelope.refuse).toMatchObject({ code: 'headers_too_large', http_status: 431 })
      const trading = await send('/health')
      expect(trading.status).toBe(431)
      expect(trading.type).toMatch(/^application\/problem\+json/)
      expect(JSON.parse(trading.body)).toMatchObject({ status: 431, code: 'headers_too_large', instance: '/health' })
    } finally {
      await app.close()
    }
  })
})
