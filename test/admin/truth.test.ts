// The truth summary: known answers through the real routes, provenance from the registry, the envelope-flag counter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { registry } from '../../src/caller/registry.js'
import { KNOWN_ANSWER_CASES } from '../../src/admin/truth-cases.js'

const TRUTH = '/api/v1/admin/truth/summary'

describe('GET /api/v1/admin/truth/summary', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
  })
  afterAll(async () => {
    await app.close()
  })

  it('runs every known-answer case that has a route here, and none gives a wrong answer', async () => {
    const res = await app.inject(TRUTH)
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body).toMatchObject({ ok: true, surface: 'marketing-caller', refuse: null })
    const truth = body.data
    expect(truth.algorithm).toBe('known-answer-inject/1')
    expect(truth.tests.map((t: any) => t.name)).toEqual(KNOWN_ANSWER_CASES.map((c) => c.name))
    for (const test of truth.tests) {
      const routed = app.routeTable.some((r) => `${r.method} ${r.url}` === test.route)
      // A wrong answer is a failure whatever the reason; a missing route or a busy host is a skip, said so.
      expect(test.status, `${test.name}: ${test.detail}`).not.toBe('fail')
      if (!routed) expect(test.detail).toMatch(/is not a route of this host/)
      if (test.status === 'pass') {
        expect(test.status_code).toBe(200)
        expect(test.ms).toBeGreaterThanOrEqual(0)
        expect(test.detail).toBeNull()
      }
      expect(test.source.length).toBeGreaterThan(10)
    }
    expect(truth.passed + truth.failed + truth.skipped).toBe(truth.tests.length)
    expect(truth.provenance.map((p: any) => p.operation)).toEqual(registry.operations.map((op) => op.name))
    for (const p of truth.provenance) expect(p.provenance.length).toBeGreaterThan(0)
    expect(truth.envelopes_without_flags).toBe(0)
  })

  it('runs again on ?rerun=1 and keeps the last run otherwise', async () => {
    const first = json(await app.inject(TRUTH)).data
    const again = json(await app.inject(TRUTH)).data
    expect(again.ran_at).toBe(first.ran_at)
    const rerun = json(await app.inject(`${TRUTH}?rerun=1`)).data
    expect(rerun.trigger).toBe('rerun')
    expect(rerun.tests).toHaveLength(KNOWN_ANSWER_CASES.length)
    expect(json(await app.inject(TRUTH)).data.trigger).toBe('rerun')
  })

  it('refuses an unknown query parameter value with invalid_input', async () => {
    const res = await app.inject(`${TRUTH}?rerun=yes`)
    expect(res.statusCode).toBe(400)
    expect(json(res).refuse.code).toBe('invalid_input')
  })

  it('reports the live count of envelopes emitted without the flags', async () => {
    app.callerCounters.envelopesWithoutFlags = 3
    try {
      expect(json(await app.inject(TRUTH)).data.envelopes_without_flags).toBe(3)
    } finally {
      app.callerCounters.envelopesWithoutFlags = 0
    }
  })
})
