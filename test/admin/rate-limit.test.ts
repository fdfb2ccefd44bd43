// The host's own checks never spend a client's rate-limit quota: smoke checks, self-tests and the page's reads are
// in-process and exempt; a client cannot claim to be internal, not even with the marker, over a real socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, expectRefusal, json } from '../helper.js'
import { internalHeaders } from '../../src/access/internal.js'
import { ADMIN_ROUTES, runSmokeChecks } from '../../src/admin/smoke.js'
import { readinessReportSchema } from '../../src/admin/schemas.js'

const OVERVIEW = '/api/v1/admin/go-live/overview'

describe('RATE_LIMIT_PER_MIN=40 and the readiness report', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp({ env: { RATE_LIMIT_PER_MIN: '40' } })
  })
  afterAll(async () => {
    await app.close()
  })

  it('ten readiness requests in a row: every report stays ready with all smoke checks 2xx', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await app.inject(OVERVIEW)
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200)
      const report = readinessReportSchema.parse(json(res).data)
      expect(report.summary.status, JSON.stringify(report.blockers.required_blockers)).toBe('ready')
      expect(report.blockers.boot.checks.map((c) => c.status_code)).toEqual(ADMIN_ROUTES.map(() => 200))
      expect(report.truth).toMatchObject({ failed: 0, skipped: 0 })
    }
    // Ten of the client's 40 are spent, not 10 × (4 smoke checks + the page's 3 reads + 9 known answers).
    const res = await app.inject('/api/v1/health')
    expect(Number(res.headers['x-ratelimit-remaining'])).toBe(40 - 11)
  })

  it('with the client over its quota, the smoke checks still pass (a limiter refusal never becomes a boot blocker)', async () => {
    let limited = null
    for (let i = 0; i < 45 && !limited; i++) {
      const res = await app.inject('/api/v1/health')
      if (res.statusCode === 429) limited = res
    }
    expect(limited).not.toBeNull()
    expectRefusal(limited!, 'rate_limited', 429)
    const checks = await runSmokeChecks(app)
    expect(checks.map((c) => [c.path, c.status_code, c.ok])).toEqual(ADMIN_ROUTES.map((p) => [p, 200, true]))
    expect(json(await app.inject({ url: '/api/v1/health', headers: internalHeaders({ smoke: false }) })).ok).toBe(true)
  })
})

describe('the internal marker over a real socket', () => {
  let app: FastifyInstance
  let base: string
  beforeAll(async () => {
    app = await buildTestApp({ env: { RATE_LIMIT_PER_MIN: '5', ADMIN_TOKEN: 'a-long-enough-admin-token-0123' } })
    base = await app.listen({ host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await app.close()
  })

  it('is not internal: the admin credential is still required and the requests count toward the quota', async () => {
    // Even the real secret (as if it had leaked) does not make a socket request internal.
    const headers = internalHeaders({ smoke: true })
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${base}/api/v1/admin/command-post/summary`, { headers })
      statuses.push(res.status)
      await res.arrayBuffer()
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429])
  })
})
