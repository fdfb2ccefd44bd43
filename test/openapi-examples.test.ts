// The host document's request examples: every POST carries one, each succeeds when sent as the explorer sends it, and
// every answer (a success, a refusal by nature, a refusal of a bad input) has its status documented for that operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import SwaggerParser from '@apidevtools/swagger-parser'
import { registry } from '../src/caller/registry.js'
import { fullPath } from '../src/caller/projections.js'
import { againWhenColdTimeout, buildTestApp, json, takesTimeBudget } from './helper.js'

const ADMIN_TOKEN = 'openapi-examples-admin-token'

interface Media { example?: unknown; examples?: Record<string, { value: unknown }> }
interface Operation { requestBody?: { content: Record<string, Media> }; responses: Record<string, unknown> }
interface Post { path: string; operation: Operation }

let app: FastifyInstance
let doc: { paths: Record<string, Record<string, Operation>>; components: Record<string, any> }
let posts: Post[]

beforeAll(async () => {
  app = await buildTestApp({ env: { ADMIN_TOKEN } })
  doc = json(await app.inject('/docs/json'))
  posts = Object.entries(doc.paths).flatMap(([path, item]) => (item.post ? [{ path, operation: item.post }] : []))
})
afterAll(async () => app.close())

/** The examples of an operation's first media type: what the explorer pre-fills. */
function examplesOf(operation: Operation): unknown[] {
  const [media] = Object.values(operation.requestBody?.content ?? {})
  if (!media) return []
  if (media.example !== undefined) return [media.example]
  return Object.values(media.examples ?? {}).map((e) => e.value)
}

const budgeted = new Set(registry.operations.filter(takesTimeBudget).map((op) => fullPath(op)))
const refusedByNature = new Set(registry.operations.filter((op) => op.stability === 'refused').map((op) => fullPath(op)))

const post = (path: string, payload: unknown) => app.inject({
  method: 'POST', url: path, payload: payload as object,
  headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
})

describe('request examples in /docs/json', () => {
  it('every POST with a body has examples, JSON first, and the document stays valid OpenAPI 3.0.3', async () => {
    expect(posts.length).toBeGreaterThanOrEqual(27)
    for (const { path, operation } of posts) {
      if (!operation.requestBody) continue
      expect(Object.keys(operation.requestBody.content)[0], path).toBe('application/json')
      expect(examplesOf(operation).length, `${path} has no example`).toBeGreaterThan(0)
    }
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy()
  })

  it('every example of every POST answers 2xx (or its documented refusal by nature), with the status documented', async () => {
    for (const { path, operation } of posts) {
      for (const example of examplesOf(operation)) {
        const res = await againWhenColdTimeout((payload) => post(path, payload), example, budgeted.has(path))
        expect(operation.responses[String(res.statusCode)], `${path} answered an undocumented ${res.statusCode}: ${res.body.slice(0, 200)}`).toBeDefined()
        if (refusedByNature.has(path)) expect(res.statusCode).toBe(501)
        else expect(res.statusCode, `${path}: ${res.body.slice(0, 300)}`).toBeLessThan(300)
      }
    }
  }, 120_000)

  it('a body that is not the operation\'s input is refused with a documented 400 on every POST', async () => {
    for (const { path, operation } of posts) {
      if (refusedByNature.has(path) || !operation.requestBody) continue
      const res = await post(path, { not_a_field_of_anything: true })
      expect(res.statusCode, `${path}: ${res.body.slice(0, 200)}`).toBe(400)
      expect(operation.responses['400'], path).toBeDefined()
    }
  })

  it('refusal responses are shared: the caller\'s hold the refusal envelope, the others an RFC 9457 problem', () => {
    const sat = doc.paths['/api/v1/sat']!.post!.responses
    expect(sat['400']).toEqual({ $ref: '#/components/responses/Refusal400invalid_input' })
    const backtest = doc.paths['/api/v11/trading/backtest']!.post!.responses
    expect(backtest['404']).toEqual({ $ref: '#/components/responses/Problem404not_found' })
    const { responses, schemas } = doc.components
    expect(Object.keys(responses.Refusal400invalid_input.content)).toEqual(['application/json'])
    expect(Object.keys(responses.Problem404not_found.content)).toEqual(['application/problem+json'])
    expect(schemas.RefusalEnvelope.properties.refuse).toBeDefined()
    expect(schemas.Problem.properties.detail).toBeDefined()
    // a route that needs a credential documents both refusals of one
    expect(doc.paths['/api/v1/grant']!.post!.responses).toMatchObject({ 401: expect.anything(), 403: expect.anything() })
    expect(doc.paths['/api/v11/datasets']!.post!.responses).toMatchObject({ 401: expect.anything(), 403: expect.anything() })
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
  })
})
