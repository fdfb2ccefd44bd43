// Issue #13: JSON-RPC batches to /mcp, over a real socket with health and the loop watched. The SDK hands every
// message of a batch to its handler in one turn and writes the batch's answers as one message: 100 `openapi` tool
// calls in one POST held the loop's CPU ~1 s, 50 reads of the host's OpenAPI document ~400 ms (a 29 MB answer). A
// batch holds at most MAX_BATCH_MESSAGES, and each message's work starts in a turn of its own.
import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_BATCH_MESSAGES } from '../../src/mcp/plugin.js'
import { listeningTestApp } from '../helper.js'
import { besideHealth, keepingBytes, pastStartReport } from './monitor.js'

const host = listeningTestApp()


const messages = (n: number, method: string, params: unknown) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method, params }))

// `openapi` is a discovery tool: not in the default toolsets
const mcp = (body: unknown) => keepingBytes(`${host.base}/mcp?toolsets=all`, { body, headers: { accept: 'application/json, text/event-stream' } })

describe('JSON-RPC batches to /mcp', () => {
  beforeAll(async () => {
    await pastStartReport(host.app)
    // The SDK's first load and the host document's first build: over before anything is measured.
    expect((await mcp(messages(1, 'tools/call', { name: 'openapi', arguments: {} })[0])).status).toBe(200)
  }, 60_000)

  it('refuses a batch of 100 tool calls over_limit before any runs', async () => {
    const { value: sent, health } = await besideHealth(host.base, 'MCP batch of 100 openapi calls',
      () => mcp(messages(100, 'tools/call', { name: 'openapi', arguments: {} })))
    expect(sent.status).toBe(400)
    expect(sent.json().error).toMatchObject({ code: -32600, data: { refuse: { code: 'over_limit', hints: { limit: 'MAX_BATCH_MESSAGES' } } } })
    expect(health.failures).toBe(0)
  })

  it(`answers a batch of ${MAX_BATCH_MESSAGES} reads of the host's OpenAPI document, each in its own turn`, async () => {
    const { value: sent } = await besideHealth(host.base, `MCP batch of ${MAX_BATCH_MESSAGES} OpenAPI reads`,
      () => mcp(messages(MAX_BATCH_MESSAGES, 'resources/read', { uri: 'ncm://openapi/host.json' })))
    const answers = sent.json() as Array<{ id: number; result: { contents: Array<{ text: string }> } }>
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4].slice(0, MAX_BATCH_MESSAGES))
    for (const answer of answers) expect(JSON.parse(answer.result.contents[0]!.text).openapi).toMatch(/^3\./)
  })
})
