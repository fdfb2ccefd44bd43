// /run and /cli dispatch through the same gate as the direct routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { serializerOf } from '../../src/json/serializer.js'
import { okEnvelope } from '../../src/http/envelope.js'
import { run } from '../../src/caller/ops/orchestration/run.js'
import { cli } from '../../src/caller/ops/orchestration/cli.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(async () => app.close())

const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object })

describe('POST /api/v1/run', () => {
  it('runs a single operation and answers with its data', async () => {
    const res = await post('/api/v1/run', { op: 'captions' })
    expect(res.statusCode).toBe(200)
    expect(json(res).data.results[0].data.chat).toBeTruthy()
  })
  it('a single refused job answers with that refusal and its status', async () => {
    const res = await post('/api/v1/run', { op: 'chat', input: {} })
    expect(res.statusCode).toBe(501)
    expect(json(res).refuse.code).toBe('token_completion_unavailable')
  })
  it('unknown op → not_found with the closest names', async () => {
    const res = await post('/api/v1/run', { op: 'lexicn' })
    expect(res.statusCode).toBe(404)
    expect(json(res).refuse.hints.closest).toContain('lexicon')
  })
  it('checks the inner input schema and lists the issues', async () => {
    const res = await post('/api/v1/run', { op: 'run', input: {} })
    expect(res.statusCode).toBe(400)
  })
  it('a batch gives each job its own result; stop_on_refusal stops at the first refusal', async () => {
    const all = json(await post('/api/v1/run', { batch: [{ op: 'surface' }, { op: 'chat' }, { op: 'lexicon' }] })).data
    expect(all.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, false, true])
    expect(all.refused).toBe(1)
    const stopped = json(await post('/api/v1/run', { batch: [{ op: 'surface' }, { op: 'chat' }, { op: 'lexicon' }], stop_on_refusal: true })).data
    expect(stopped.results).toHaveLength(2)
    expect(stopped.stopped_early).toBe(true)
  })
  it("a batch with a mill answer is, byte for byte, the text fast-json-stringify writes through the route's schema", async () => {
    // sat runs in the mill and answers as bytes; they are spliced into the batch's answer as they are.
    const batch = [{ op: 'sat', input: { dimacs: 'p cnf 3 2\n1 2 0\n-1 3 0\n' } }, { op: 'surface' }, { op: 'chat', input: {} }, { op: 'lexicon' }]
    for (const body of [{ batch }, { batch, stop_on_refusal: true }, { op: 'sat', input: batch[0]!.input }]) {
      const res = await post('/api/v1/run', body)
      expect(res.statusCode).toBe(200)
      const answer = json(res)
      expect(answer.data.results[0]).toMatchObject({ op: 'sat', ok: true, data: { status: 'SAT' } })
      expect(res.body).toBe(serializerOf(okEnvelope(run.output))(answer))
    }
  })
  it('refuses batches over the limit with over_limit', async () => {
    const res = await post('/api/v1/run', { batch: Array.from({ length: 65 }, () => ({ op: 'surface' })) })
    expect(res.statusCode).toBe(422)
    expect(json(res).refuse.reason).toMatch(/64/)
  })
  it('refuses heavy work with occupied while shedding, per job', async () => {
    app.admission.override('shedding')
    try {
      const res = await post('/api/v1/run', { op: 'sat', input: { dimacs: 'p cnf 1 1\n1 0\n' } })
      expect(res.statusCode).toBe(503)
      expect(json(res).refuse.code).toBe('occupied')
    } finally {
      app.admission.override(null)
    }
  })
})

describe('POST /api/v1/cli', () => {
  it('parses a line and runs it', async () => {
    const res = await post('/api/v1/cli', { line: 'run --op captions' })
    expect(res.statusCode).toBe(400) // run cannot be dispatched through cli
    const ok = json(await post('/api/v1/cli', { line: 'surface' }))
    expect(ok.data.parsed.op).toBe('surface')
    expect(ok.data.results[0].data.surface).toBe('marketing-caller')
  })
  it("answers, byte for byte, the text fast-json-stringify writes through the route's schema", async () => {
    const res = await post('/api/v1/cli', { line: 'sat --dimacs "p cnf 2 2\n1 2 0\n-1 0\n"' })
    expect(res.statusCode).toBe(200)
    const answer = json(res)
    expect(answer.data.results[0].data.model).toEqual([-1, 2])
    expect(res.body).toBe(serializerOf(okEnvelope(cli.output))(answer))
  })
  it('unknown op → not_found with closest names', async () => {
    const res = await post('/api/v1/cli', { argv: ['surfac'] })
    expect(res.statusCode).toBe(404)
    expect(json(res).refuse.hints.closest[0]).toBe('surface')
  })
  it('refuses @file over HTTP', async () => {
    const res = await post('/api/v1/cli', { line: 'surface --x @/etc/passwd' })
    expect(res.statusCode).toBe(400)
    expect(res.body).not.toContain('root:')
  })
})
