// The registry contract: every example of every operation runs over HTTP, succeeds and matches its output schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { FastifyInstance } from 'fastify'
import { registry } from '../../src/caller/registry.js'
import { anyEnvelope, okEnvelope } from '../../src/http/envelope.js'
import { fullPath } from '../../src/caller/projections.js'
import { againWhenColdTimeout, buildTestApp, json, takesTimeBudget } from '../helper.js'
import { zodSerializerCompiler } from '../../src/plugins/serializer.js'

const serializerOf = (schema: z.ZodType) => zodSerializerCompiler()({ schema, method: 'POST', url: '', httpStatus: '200' }) as (data: unknown) => string

// Examples run as the admin, so operations that need a credential (grant, pin writes) are exercised too.
const ADMIN_TOKEN = 'contract-test-admin-token'
let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp({ env: { ADMIN_TOKEN } })
})
afterAll(async () => app.close())

const ENVELOPE_FIELDS = {
  ok: 'boolean', surface: 'string', ncm: 'string', hub: 'string', occupancy: 'string',
  service_owns_hardware: 'boolean', invented_metrics: 'boolean', sat_perp_hal: 'boolean',
} as const

describe('registry', () => {
  it('has unique names and routes and at least one example per operation', () => {
    const names = registry.operations.map((op) => op.name)
    expect(new Set(names).size).toBe(names.length)
    const routes = registry.operations.map((op) => `${op.method} ${op.path}`)
    expect(new Set(routes).size).toBe(routes.length)
    for (const op of registry.operations) expect(op.examples.length, op.name).toBeGreaterThan(0)
  })

  it('lists every one of its operations in /ops, /captions, /lobes and /skills', async () => {
    const ops = json(await app.inject('/api/v1/ops')).data.operations.map((o: { name: string }) => o.name)
    const captions = Object.keys(json(await app.inject('/api/v1/captions')).data)
    const lobes = json(await app.inject('/api/v1/lobes')).data.lobes.flatMap((l: { operations: Array<{ name: string }> }) => l.operations.map((o) => o.name))
    const tools = json(await app.inject('/api/v1/skills')).data.tools.map((t: { name: string }) => t.name)
    const names = registry.operations.map((op) => op.name).sort()
    for (const list of [ops, captions, lobes, tools]) expect([...list].sort()).toEqual(names)
  })
})

describe.each(registry.operations.map((op) => [op.name, op] as const))('operation %s', (_name, op) => {
  it.each(op.examples.map((example, i) => [i, example] as const))('example %i answers per its contract', async (_i, example) => {
    const send = (input: unknown) => app.inject({
      method: op.method,
      url: fullPath(op),
      headers: { accept: 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(op.method === 'GET'
        ? { query: input as Record<string, string> }
        : { payload: input as object }),
    })
    const res = await againWhenColdTimeout(send, example, op.method !== 'GET' && takesTimeBudget(op))
    const body = json(res)
    for (const [field, type] of Object.entries(ENVELOPE_FIELDS)) expect(typeof body[field], field).toBe(type)
    expect(body).toHaveProperty('refuse')
    expect(body).toHaveProperty('data')
    expect(anyEnvelope.safeParse(body).success).toBe(true)
    if (op.stability === 'refused') {
      expect(body.ok).toBe(false)
      expect(res.statusCode).toBe(body.refuse.http_status)
      return
    }
    expect(res.statusCode, JSON.stringify(body.refuse)).toBeLessThan(300)
    expect(body.ok).toBe(true)
    expect(body.refuse).toBeNull()
    const parsed = op.output.safeParse(body.data)
    expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe(true)
    // Written in the mill (heavy answers, spliced in) or by the route's serializer, an answer is the envelope's text.
    expect(res.body).toBe(serializerOf(okEnvelope(op.output))(body))
  })
})
