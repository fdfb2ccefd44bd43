// Every refusal path of the caller surface answers with the contract envelope and the right code and status.
import { afterEach, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { createRegistry, registry } from '../../src/caller/registry.js'
import { defineOperation } from '../../src/caller/operation.js'
import { buildTestApp, expectRefusal, json } from '../helper.js'

let app: FastifyInstance | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})


// A tiny operation set for paths the real registry cannot reach on purpose (a bug → 500, a strict body → 400).
const probe = defineOperation({
  name: 'probe',
  method: 'POST',
  path: '/probe',
  lobe: 'runtime',
  caption: 'test probe',
  summary: 'test probe',
  input: z.object({ n: z.number().int().min(1), explode: z.boolean().default(false) }).strict(),
  output: z.object({ n: z.number() }),
  provenance: ['computed'],
  examples: [{ n: 1 }],
  handler: (input) => {
    if (input.explode) throw new Error('secret internals: /etc/passwd at line 3')
    return { n: input.n }
  },
})

describe('caller refusals', () => {
  it('404 for an unknown path, enveloped', async () => {
    app = await buildTestApp()
    expectRefusal(await app.inject('/api/v1/does-not-exist'), 'not_found', 404)
  })

  it('400 with issues listing path and message per problem', async () => {
    app = await buildTestApp({ registry: createRegistry([...registry.operations, probe]) })
    const refuse = expectRefusal(
      await app.inject({ method: 'POST', url: '/api/v1/probe', payload: { n: 'x', extra: true } }),
      'invalid_input', 400,
    )
    expect(refuse.issues.length).toBeGreaterThanOrEqual(1)
    for (const issue of refuse.issues) {
      expect(typeof issue.path).toBe('string')
      expect(typeof issue.message).toBe('string')
    }
    expect(refuse.issues.map((i: { path: string }) => i.path)).toContain('n')
  })

  it('400 for a body that is not JSON', async () => {
    app = await buildTestApp({ registry: createRegistry([...registry.operations, probe]) })
    expectRefusal(
      await app.inject({ method: 'POST', url: '/api/v1/probe', headers: { 'content-type': 'application/json' }, payload: '{"n":' }),
      'invalid_input', 400,
    )
  })

  it('413 for a body over the limit', async () => {
    app = await buildTestApp({ env: { BODY_LIMIT_BYTES: '2048' }, registry: createRegistry([...registry.operations, probe]) })
    expectRefusal(
      await app.inject({ method: 'POST', url: '/api/v1/probe', payload: { n: 1, pad: 'x'.repeat(4096) } }),
      'payload_too_large', 413,
    )
  })

  it('429 with Retry-After once the per-IP rate limit is spent', async () => {
    app = await buildTestApp({ env: { RATE_LIMIT_PER_MIN: '3' } })
    for (let i = 0; i < 3; i++) expect((await app.inject('/api/v1/health')).statusCode).toBe(200)
    const res = await app.inject('/api/v1/health')
    const refuse = expectRefusal(res, 'rate_limited', 429)
    expect(refuse.retry_after_s).toBeGreaterThan(0)
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('501 for chat, whatever the body', async () => {
    app = await buildTestApp()
    const refuse = expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/chat', payload: {} }), 'token_completion_unavailable', 501)
    expect(refuse.op).toBe('chat')
  })

  it('500 carries the request id only, never the error message or a stack', async () => {
    app = await buildTestApp({ registry: createRegistry([...registry.operations, probe]) })
    const res = await app.inject({ method: 'POST', url: '/api/v1/probe', payload: { n: 1, explode: true }, headers: { 'x-request-id': 'req-123' } })
    const refuse = expectRefusal(res, 'internal', 500)
    expect(refuse.reason).toContain('req-123')
    expect(res.body).not.toContain('secret internals')
    expect(res.body).not.toContain('at ')
    expect(res.headers['x-request-id']).toBe('req-123')
  })

  it('503 occupied for a heavy operation while shedding, with retry_after_s', async () => {
    const heavy = defineOperation({ ...probe, name: 'heavy_probe', path: '/heavy-probe', heavy: true })
    app = await buildTestApp({ registry: createRegistry([...registry.operations, heavy]) })
    app.admission.override('shedding')
    const res = await app.inject({ method: 'POST', url: '/api/v1/heavy-probe', payload: { n: 1 } })
    const refuse = expectRefusal(res, 'occupied', 503)
    expect(refuse.retry_after_s).toBeGreaterThan(0)
    expect(json(res).occupancy).toBe('shedding')
    // Light operations are still admitted.
    expect((await app.inject('/api/v1/health')).statusCode).toBe(200)
  })

  it('counts refusals by code in /honesty', async () => {
    app = await buildTestApp()
    await app.inject('/api/v1/nope')
    await app.inject({ method: 'POST', url: '/api/v1/chat', payload: {} })
    const data = json(await app.inject('/api/v1/honesty')).data
    expect(data.refusals_since_start.not_found).toBe(1)
    expect(data.refusals_since_start.token_completion_unavailable).toBe(1)
  })
})
