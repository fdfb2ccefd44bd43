// The caller OpenAPI document (contract, SPEC §2.1) and the host document both validate as OpenAPI 3.0.3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SwaggerParser from '@apidevtools/swagger-parser'
import type { FastifyInstance } from 'fastify'
import { registry } from '../../src/caller/registry.js'
import { HUB_VERSION, NCM_VERSION } from '../../src/version.js'
import { buildTestApp, json } from '../helper.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(async () => app.close())

describe('GET /api/v1/openapi.json', () => {
  it('is the contract document: 3.0.3, versions, one server, every caller path with summary = full path', async () => {
    const doc = json(await app.inject('/api/v1/openapi.json')).data
    expect(doc.openapi).toBe('3.0.3')
    expect(doc.info.title).toBeTruthy()
    expect(doc.info.version).toBe(`${NCM_VERSION}+hub-${HUB_VERSION}`)
    expect(doc.info.description).toMatch(/logic/)
    expect(doc.servers).toEqual([{ url: '/api/v1', description: 'this host' }])
    for (const op of registry.operations) {
      const item = doc.paths[op.path]
      expect(item, op.path).toBeDefined()
      const method = item[op.method.toLowerCase()]
      expect(method, `${op.method} ${op.path}`).toBeDefined()
      expect(method.summary).toBe(`/api/v1${op.path}`)
      expect(method.responses['200']).toBeDefined()
      if (op.method === 'POST') expect(method.requestBody).toBeDefined()
    }
    expect(Object.keys(doc.paths).length).toBe(registry.operations.length)
  })

  it('validates with an OpenAPI validator', async () => {
    const doc = json(await app.inject('/api/v1/openapi.json')).data
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy()
  })

  it('the host document at /docs/json validates too and covers every caller route', async () => {
    const doc = json(await app.inject('/docs/json'))
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy()
    for (const op of registry.operations) {
      const path = op.path === '/' ? '/api/v1/' : `/api/v1${op.path}`
      expect(doc.paths[path] ?? doc.paths[path.replace(/\/$/, '')], path).toBeDefined()
    }
  })

  it('serves the explorer at /docs and the reference at /reference', async () => {
    const ui = await app.inject('/docs/')
    expect(ui.statusCode).toBe(200)
    expect(ui.headers['content-type']).toMatch(/html/)
    const ref = await app.inject('/reference/')
    expect(ref.statusCode).toBe(200)
    expect(ref.body).toMatch(/docs\/json/)
  })
})
