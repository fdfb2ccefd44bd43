// Issue #13: a flood of unmatched paths logs a bounded amount (it logged 2–3 lines a request): the first few of each
// minute in full, the rest counted into one summary line. Requests that match a route are all logged as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { buildApp } from '../../src/app.js'
import { testConfig } from '../helper.js'

const lines: Array<{ msg: string; req?: { url: string }; res?: { statusCode: number } }> = []
let app: FastifyInstance
let base: string

beforeAll(async () => {
  app = await buildApp({
    config: testConfig({ LOG_LEVEL: 'info' }), tradingSeed: 'none',
    logStream: { write: (line) => { lines.push(JSON.parse(line)) } },
  })
  base = await app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(async () => app.close())

describe('unmatched paths', () => {
  it('240 unmatched requests on four surfaces log the first 5 in full and nothing more before the summary', async () => {
    lines.length = 0
    const surfaces = ['/wp-admin', '/api/v1/nope', '/api/v11/nope', '/admin/nope', '/api/v1/health']
    for (let i = 0; i < 60; i++) {
      for (const path of surfaces.slice(0, 4)) {
        const res = await request(`${base}${path}/${i}.php`)
        await res.body.dump()
        expect(res.statusCode).toBe(404)
      }
      // A matched request between them is still logged.
      if (i % 20 === 0) await (await request(`${base}/api/v1/health`)).body.dump()
    }
    const unmatchedLines = lines.filter((l) => l.req?.url.includes('.php') || l.res?.statusCode === 404 || l.msg === 'refused')
    expect(unmatchedLines.filter((l) => l.msg === 'incoming request')).toHaveLength(5)
    expect(unmatchedLines.filter((l) => l.msg === 'request completed')).toHaveLength(5)
    expect(unmatchedLines.length).toBeLessThanOrEqual(5 * 3)
    expect(lines.filter((l) => l.msg === 'incoming request' && l.req?.url === '/api/v1/health')).toHaveLength(3)
  })
})
