// A tool answer over MCP_INLINE_ANSWER_CHARS is linked, not inlined: a heavy tool names its job's result URL, which
// answers the whole data; a light tool names its route; a small answer stays inline as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { request } from 'undici'
import { buildTestApp } from '../helper.js'
import { MCP_INLINE_ANSWER_CHARS } from '../../src/mcp/tool-answer.js'

describe('MCP answers over the inline size', () => {
  let app: FastifyInstance
  let base: string
  let client: Client

  beforeAll(async () => {
    app = await buildTestApp()
    base = await app.listen({ host: '127.0.0.1', port: 0 })
    app.admission.override('live-bound')
    client = new Client({ name: 'ncm-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)))
  })
  afterAll(async () => {
    await client?.close().catch(() => undefined)
    await app?.close()
  })

  it("a heavy tool's large answer names its job's result URL, which answers the whole", async () => {
    // A model lists every declared variable: 100k of them are ~700 KB of JSON.
    const result = await client.callTool({ name: 'sat', arguments: { dimacs: 'p cnf 100000 1\n1 0\n' } })
    expect(result.isError).toBeFalsy()
    const linked = result.structuredContent as any
    const job = (result._meta as any)['ncm/job'] as string
    expect(linked).toMatchObject({
      inlined: false, max_inline_chars: MCP_INLINE_ANSWER_CHARS, result_url: `${base}/api/v1/jobs/${job}/result`,
      route: `POST ${base}/api/v1/sat`, answer: { status: 'SAT', verified: true },
    })
    expect(linked.omitted.map((m: { member: string }) => m.member)).toContain('model')
    expect(linked.answer_chars).toBeGreaterThan(MCP_INLINE_ANSWER_CHARS)
    const whole = await request(linked.result_url)
    const data = ((await whole.body.json()) as any).data
    expect(data.model).toHaveLength(100_000)
    expect(data.status).toBe('SAT')
    expect(JSON.stringify(data).length).toBe(linked.answer_chars)
  })

  it('a small answer is inlined as its data', async () => {
    const result = await client.callTool({ name: 'sat', arguments: { dimacs: 'p cnf 2 1\n1 2 0\n' } })
    expect(result.structuredContent).toMatchObject({ status: 'SAT', verified: true })
    expect((result.structuredContent as any).inlined).toBeUndefined()
  })

  it("the caller OpenAPI resource is the document's text (the operation answers it already written)", async () => {
    const read = await client.readResource({ uri: 'ncm://openapi/caller.json' })
    const doc = JSON.parse((read.contents[0] as { text: string }).text)
    expect(doc.openapi).toBe('3.0.3')
    expect(doc.paths).toHaveProperty('/sat')
    const viaRoute = await request(`${base}/api/v1/openapi.json`)
    expect(doc).toEqual(((await viaRoute.body.json()) as any).data)
  })
})
