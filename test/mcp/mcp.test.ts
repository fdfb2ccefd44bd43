// /mcp through the SDK's own client over a real socket: tools are exactly the registry's operations plus the trading
// tools; light and heavy calls, a resource, refusals as tool errors, the same bearer scopes as the API.
import { JsonBytes } from '../../src/json/bytes.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { buildTestApp, okData } from '../helper.js'
import { createJobRepository } from '../../src/jobs/repository.js'
import { registry } from '../../src/caller/registry.js'
import { mcpTools, selectTools, TRADING_TOOLS } from '../../src/mcp/tools.js'
import { DEFAULT_TOOLSETS } from '../../src/mcp/toolsets.js'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'

const asData = (answer: unknown): unknown => (answer instanceof JsonBytes ? answer.value() : answer)

const ADMIN_TOKEN = 'mcp-test-admin-token-0123456789'
const SIMULATE = { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 }, horizon: 252, method: 'bootstrap', seed: 7 }

describe('/mcp (Streamable HTTP, SDK client)', () => {
  let app: FastifyInstance
  let base: string
  const clients: Client[] = []

  async function connect(token?: string, path = '/mcp'): Promise<Client> {
    const client = new Client({ name: 'ncm-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(path, base), {
      requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    })
    await client.connect(transport)
    clients.push(client)
    return client
  }

  async function grant(scopes: string[]): Promise<string> {
    const res = await app.inject({
      method: 'POST', url: '/api/v1/grant', headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { subject: `mcp-${scopes.join('+') || 'none'}`, scopes, ttl_s: 3600 },
    })
    return okData(res).token as string
  }

  beforeAll(async () => {
    app = await buildTestApp({ env: { ADMIN_TOKEN } })
    base = await app.listen({ host: '127.0.0.1', port: 0 })
    // On the shared machine a stalled sampling window reads as an infinite event-loop delay and sheds heavy work;
    // these tests are about the protocol, not admission.
    app.admission.override('live-bound')
  })
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined)
    await app?.close()
  })

  it('initializes, answers ping, and lists exactly the registry operations plus the trading tools (every toolset)', async () => {
    const client = await connect(undefined, '/mcp?toolsets=all')
    expect(client.getServerVersion()).toMatchObject({ name: 'ncm-hub' })
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} })
    expect(client.getInstructions()).toContain('honest compute')
    await expect(client.ping()).resolves.toEqual({})
    const { tools } = await client.listTools()
    const expected = [...registry.operations.map((op) => op.name), ...TRADING_TOOLS.map((t) => t.name)]
    expect(tools.map((t) => t.name).sort()).toEqual([...expected].sort())
    expect(tools).toHaveLength(registry.operations.length + TRADING_TOOLS.length)
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object')
    const sat = tools.find((t) => t.name === 'sat')!
    expect(sat.description).toContain(registry.byName('sat')!.caption)
    expect(sat.inputSchema.properties).toHaveProperty('dimacs')
    expect(tools.find((t) => t.name === 'surface')!.annotations?.readOnlyHint).toBe(true)
  })

  it('calls a light tool: structured content equals the route\'s data, plus a text rendering', async () => {
    const client = await connect()
    const args = { content: 'abc', algorithms: ['sha256'] }
    const result = await client.callTool({ name: 'digest', arguments: args })
    expect(result.isError).toBeFalsy()
    const viaRoute = okData(await app.inject({ method: 'POST', url: '/api/v1/digest', payload: args }))
    expect(result.structuredContent).toEqual(viaRoute)
    expect((result.structuredContent as any).digests.sha256.hex).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect((result.content as Array<{ type: string; text: string }>)[0]!.text).toContain('ba7816bf')
  })

  it('heavy tools need run:heavy when ADMIN_TOKEN is set: refused without it, solved with it', async () => {
    const dimacs = 'p cnf 2 2\n1 2 0\n-1 0\n'
    const anonymous = await connect()
    const refused = await anonymous.callTool({ name: 'sat', arguments: { dimacs } })
    expect(refused.isError).toBe(true)
    expect((refused.structuredContent as any).refuse).toMatchObject({ code: 'unauthorized', op: 'sat', http_status: 401 })

    const pinOnly = await connect(await grant(['pin:write']))
    const forbidden = await pinOnly.callTool({ name: 'sat', arguments: { dimacs } })
    expect((forbidden.structuredContent as any).refuse).toMatchObject({ code: 'forbidden', http_status: 403 })
    expect((forbidden.content as any)[0].text).toMatch(/^refused forbidden \(403\): .*run:heavy/)

    const heavy = await connect(await grant(['run:heavy']))
    const solved = await heavy.callTool({ name: 'sat', arguments: { dimacs } })
    expect(solved.isError).toBeFalsy()
    expect(solved.structuredContent).toMatchObject({ status: 'SAT', model: [-1, 2], verified: true })
  })

  it('runs the trading research tools in-process: datasets, then a backtest', async () => {
    const client = await connect(ADMIN_TOKEN)
    const listed = await client.callTool({ name: 'trading_datasets', arguments: {} })
    const datasets = (listed.structuredContent as any).datasets as Array<{ id: number; rows: number }>
    expect(datasets.length).toBeGreaterThan(0)
    const result = await client.callTool({
      name: 'trading_backtest',
      arguments: { dataset: datasets[0]!.id, strategy: 'sma_cross', params: { fast: 5, slow: 20 }, cash: 10_000, commission: 0.002 },
    })
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy()
    const viaRoute = await app.inject({
      method: 'POST', url: '/api/v11/trading/backtest', headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { dataset: datasets[0]!.id, strategy: 'sma_cross', params: { fast: 5, slow: 20 }, cash: 10_000, commission: 0.002 },
    })
    expect(viaRoute.statusCode, viaRoute.body.slice(0, 300)).toBe(200)
    expect((result.structuredContent as any).stats).toEqual(JSON.parse(viaRoute.body).stats)
  })

  it('a heavy tool runs as a job: its progress arrives as notifications/progress, its job id in _meta', async () => {
    const client = await connect(ADMIN_TOKEN)
    const progress: Array<{ progress: number; total?: number; message?: string }> = []
    const result = await client.callTool(
      { name: 'trading_simulate', arguments: { ...SIMULATE, paths: 3000 } },
      undefined,
      { onprogress: (p) => { progress.push(p) }, timeout: 120_000 },
    )
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy()
    const jobId = (result._meta as Record<string, string>)['ncm/job']!
    const job = await app.jobs.get(jobId)
    expect(job).toMatchObject({ op: 'trading.simulate', state: 'succeeded' })
    expect(progress.length).toBeGreaterThan(0)
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress)
    expect(progress.at(-1)!.total).toBe(3000)
    expect(progress.at(-1)!.message).toMatch(/\d+\/3000/)
    // The job's stored answer is what the tool returned (and what the route would answer).
    const stored = await app.jobs.settled(jobId)
    expect(stored.ok && asData(stored.result)).toEqual(result.structuredContent)
  })

  it('notifications/cancelled cancels the job', async () => {
    const client = await connect(ADMIN_TOKEN)
    const controller = new AbortController()
    // PHP(12,11) runs far longer than the first progress report (≤ 250 ms), so the cancel always meets a running job.
    const call = client.callTool(
      { name: 'sat', arguments: { dimacs: pigeonholeDimacs(11), timeout_ms: 60_000 } },
      undefined,
      { signal: controller.signal, onprogress: () => controller.abort('enough'), timeout: 120_000 },
    )
    await expect(call).rejects.toThrow()
    const page = await app.jobs.list({ op: 'sat', limit: 1 })
    const job = page.rows[0]!
    const stored = (await createJobRepository(app.store.sql).input(job.id))!.value() as Record<string, unknown>
    expect(stored.dimacs).toContain('p cnf 132 ')
    const settled = await app.jobs.settled(job.id)
    expect(settled.job.state).toBe('cancelled')
  })

  it('refusals are tool errors with the refusal code and reason: chat by nature, bad input with issues', async () => {
    const client = await connect()
    const chat = await client.callTool({ name: 'chat', arguments: { message: 'hello' } })
    expect(chat.isError).toBe(true)
    expect((chat.structuredContent as any).refuse).toMatchObject({ code: 'token_completion_unavailable', op: 'chat', http_status: 501 })
    const bad = await client.callTool({ name: 'kv', arguments: { tokens: -1 } })
    expect(bad.isError).toBe(true)
    expect((bad.structuredContent as any).refuse.code).toBe('invalid_input')
    expect((bad.structuredContent as any).refuse.issues.length).toBeGreaterThan(0)
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no tool named no_such_tool/)
  })

  it('reads resources: the lexicon, skills.md, the OpenAPI document, a dataset and a pin by digest', async () => {
    const client = await connect(ADMIN_TOKEN)
    const { resources } = await client.listResources()
    const uris = resources.map((r) => r.uri)
    expect(uris).toEqual(expect.arrayContaining(['ncm://skills.md', 'ncm://lexicon', 'ncm://openapi/host.json', 'ncm://openapi/caller.json']))
    expect(uris.some((u) => u.startsWith('ncm://datasets/'))).toBe(true)

    const lexicon = await client.readResource({ uri: 'ncm://lexicon' })
    expect(lexicon.contents[0]).toMatchObject({ uri: 'ncm://lexicon', mimeType: 'application/json' })
    expect((lexicon.contents[0] as { text: string }).text).toContain('Tseitin')
    const skills = await client.readResource({ uri: 'ncm://skills.md' })
    expect((skills.contents[0] as { text: string }).text).toMatch(/^---\n/)
    const openapi = JSON.parse(((await client.readResource({ uri: 'ncm://openapi/host.json' })).contents[0] as { text: string }).text)
    expect(openapi.paths).toHaveProperty('/api/v1/sat')

    const dataset = uris.find((u) => u.startsWith('ncm://datasets/'))!
    expect(JSON.parse(((await client.readResource({ uri: dataset })).contents[0] as { text: string }).text)).toHaveProperty('sha256')

    const pinned = await client.callTool({ name: 'pin', arguments: { content: 'pinned through MCP', label: 'mcp' } })
    const digest = (pinned.structuredContent as any).digest as string
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(`ncm://pins/${digest}`)
    const pin = await client.readResource({ uri: `ncm://pins/${digest}` })
    expect(pin.contents[0]).toMatchObject({ text: 'pinned through MCP', mimeType: 'text/plain' })
    // Over the loop's 64 KiB of bytes (hashed and counted in the mill) and under the inline size in characters
    // (72,000 bytes, 60,000 characters): its text whole.
    const wide = 'é😀 "wide" pin\n'.repeat(4_000)
    const widePin = (await client.callTool({ name: 'pin', arguments: { content: wide } })).structuredContent as any
    const wideRead = await client.readResource({ uri: `ncm://pins/${widePin.digest}` })
    expect((wideRead.contents[0] as { text: string }).text === wide).toBe(true)

    await expect(client.readResource({ uri: `ncm://pins/sha256:${'0'.repeat(64)}` })).rejects.toThrow(/no pin/)
    const templates = await client.listResourceTemplates()
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['ncm://datasets/{dataset}', 'ncm://pins/{digest}'])
  })

  it('shows in the same metrics: /mcp requests under the caller surface, tool refusals in the refusal counts', async () => {
    const before = app.callerCounters.refusals.token_completion_unavailable ?? 0
    const client = await connect()
    await client.callTool({ name: 'chat', arguments: {} })
    expect(app.callerCounters.refusals.token_completion_unavailable).toBe(before + 1)
    const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(metrics.body).toMatch(/route="\/mcp"[^\n]*surface="caller"|surface="caller"[^\n]*route="\/mcp"/)
  })

  it('answers a single message without a session as plain JSON (the README\'s curl line)', async () => {
    const res = await fetch(new URL('/mcp', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    const body = await res.json() as { id: number; result: { tools: Array<{ name: string }> } }
    expect(body.id).toBe(1)
    expect(body.result.tools.map((t) => t.name)).toEqual(selectTools(mcpTools(registry), DEFAULT_TOOLSETS).map((t) => t.name))
    // The transport requires both media types in Accept.
    const jsonOnly = await fetch(new URL('/mcp', base), {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(jsonOnly.status).toBe(406)
    // The explorer's description carries the same line.
    const described = ((await (await fetch(new URL('/docs/json', base))).json()) as { info: { description: string } }).info.description
    expect(described).toContain("-H 'accept: application/json, text/event-stream'")
    expect(described).toContain('"method":"tools/list"')
  })

  it('uses the API\'s authentication and origin rules at the HTTP level', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } }
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const badBearer = await fetch(new URL('/mcp', base), { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong-token' }, body: JSON.stringify(init) })
    expect(badBearer.status).toBe(401)
    const foreign = await fetch(new URL('/mcp', base), { method: 'POST', headers: { ...headers, origin: 'https://evil.example' }, body: JSON.stringify(init) })
    expect(foreign.status).toBe(403)
    const noSession = await fetch(new URL('/mcp', base), { method: 'GET', headers: { accept: 'text/event-stream' } })
    expect(noSession.status).toBe(400)
    const unknownSession = await fetch(new URL('/mcp', base), {
      method: 'POST', headers: { ...headers, 'mcp-session-id': 'nope' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    })
    expect(unknownSession.status).toBe(404)
    // Malformed messages are answered (4xx), never left hanging.
    for (const body of ['{"jsonrpc":"2.0"}', '{"method":"tools/call","id":1}', '"x"']) {
      const res = await fetch(new URL('/mcp', base), { method: 'POST', headers, body })
      expect(res.status, body).toBeGreaterThanOrEqual(400)
      expect(res.status, body).toBeLessThan(500)
    }
    // DELETE ends a session: the next message on it is refused.
    const opened = await fetch(new URL('/mcp', base), { method: 'POST', headers, body: JSON.stringify(init) })
    const session = opened.headers.get('mcp-session-id')!
    await opened.body?.cancel()
    expect((await fetch(new URL('/mcp', base), { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(200)
    const after = await fetch(new URL('/mcp', base), {
      method: 'POST', headers: { ...headers, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    })
    expect(after.status).toBe(404)
  })
})
