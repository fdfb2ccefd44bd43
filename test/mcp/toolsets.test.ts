// MCP for real clients, through the official SDK's Client and Streamable HTTP transport over a real socket: the default
// toolsets fit a ~40-tool budget, one tool of every toolset answers, a connection selects other toolsets, every input
// schema is a flat object, the host's own browser origin is allowed (a rebinding one is not), datasets read by symbol.
import { afterAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { listeningTestApp } from '../helper.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_TOOLSETS, MAX_DEFAULT_TOOLS, TOOLSETS } from '../../src/mcp/toolsets.js'
import { mcpTools, selectTools } from '../../src/mcp/tools.js'
import { registry } from '../../src/caller/registry.js'
import { REPO_ROOT } from '../../src/version.js'

const ADMIN_TOKEN = 'mcp-toolsets-admin-token-0123456789'
const host = listeningTestApp({ env: { ADMIN_TOKEN } })
const clients: Client[] = []
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined)
})

async function connect(path: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'ncm-toolsets-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(path, host.base), {
    requestInit: { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers } },
  })
  await client.connect(transport)
  clients.push(client)
  return client
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } }
const post = (path: string, headers: Record<string, string>, body: unknown = INIT) => fetch(new URL(path, host.base), {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  body: JSON.stringify(body),
})

/** The text of a tool's structured answer, failing with the tool error shown. */
function dataOf(result: Awaited<ReturnType<Client['callTool']>>): any {
  expect(result.isError, JSON.stringify(result.structuredContent ?? result.content).slice(0, 300)).toBeFalsy()
  return result.structuredContent
}

describe('MCP toolsets', () => {
  it('the default connection lists the default toolsets within the tool budget and calls a tool of each', async () => {
    const client = await connect('/mcp')
    expect(client.getInstructions()).toContain('This connection\'s toolsets: caller, trading. Others (discovery, admin): connect to /mcp?toolsets=')
    const { tools } = await client.listTools()
    const bytes = Buffer.byteLength(JSON.stringify(tools))
    console.log(`default toolsets ${DEFAULT_TOOLSETS.join(',')}: ${tools.length} tools, ${bytes} bytes of definitions`)
    expect(tools.length).toBeLessThanOrEqual(MAX_DEFAULT_TOOLS)
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['sat', 'digest', 'run', 'trading_backtest']))
    expect(tools.map((t) => t.name)).not.toContain('lexicon')
    expect(tools.map((t) => t.name)).not.toContain('grant')
    // every toolset together is larger: the default is a real cut
    const all = await (await connect('/mcp?toolsets=all')).listTools()
    const allBytes = Buffer.byteLength(JSON.stringify(all.tools))
    console.log(`all toolsets: ${all.tools.length} tools, ${allBytes} bytes of definitions`)
    expect(all.tools.length).toBeGreaterThan(tools.length)

    const digest = dataOf(await client.callTool({ name: 'digest', arguments: { content: 'abc', algorithms: ['sha256'] } }))
    expect(digest.digests.sha256.hex).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    const datasets = dataOf(await client.callTool({ name: 'trading_datasets', arguments: {} }))
    expect(datasets.datasets.map((d: { symbol: string }) => d.symbol)).toContain('SYN-DAILY')
  })

  it('a connection selects other toolsets by query or header, and each answers its tools', async () => {
    const discovery = await connect('/mcp?toolsets=discovery')
    const listed = (await discovery.listTools()).tools.map((t) => t.name)
    expect(listed).toContain('lexicon')
    expect(listed).not.toContain('sat')
    const lexicon = dataOf(await discovery.callTool({ name: 'lexicon', arguments: {} }))
    expect(Object.keys(lexicon).length).toBeGreaterThan(0)
    // a tool of another toolset is refused, naming the toolset that holds it
    const outside = await discovery.callTool({ name: 'sat', arguments: { dimacs: 'p cnf 1 1\n1 0\n' } }).then(
      (result) => JSON.stringify(result), (err: Error) => err.message)
    expect(outside).toContain('toolset caller')
    expect(outside).toContain('/mcp?toolsets=caller')

    const admin = await connect('/mcp', { 'mcp-toolsets': 'admin' })
    expect((await admin.listTools()).tools.map((t) => t.name)).toEqual(['grant'])
    const minted = dataOf(await admin.callTool({ name: 'grant', arguments: { subject: 'toolsets-test', scopes: ['pin:write'], ttl_s: 60 } }))
    expect(minted.token).toMatch(/\S{20,}/)
  })

  it('docs/mcp.md states the toolsets\' sizes as tools/list gives them', async () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8')
    const rows = Object.fromEntries([...doc.matchAll(/^\| `(\w+)`(?: \(default\))? \| (\d+) \|/gm)].map((m) => [m[1], Number(m[2])]))
    const all = (await (await connect('/mcp?toolsets=all')).listTools()).tools
    const counts = Object.fromEntries(TOOLSETS.map((name) => [name, selectTools(mcpTools(registry), [name]).length]))
    expect(rows).toEqual(counts)
    const defaults = (await (await connect('/mcp')).listTools()).tools.length
    expect(doc).toContain(`**\`${DEFAULT_TOOLSETS.join('` + `')}\`: ${defaults} tools** (all four toolsets are ${all.length})`)
  })

  it('an unknown toolset is refused before the message is read', async () => {
    const res = await post('/mcp?toolsets=caller,everything', {})
    expect(res.status).toBe(400)
    expect(JSON.stringify(await res.json())).toContain('unknown toolset')
    expect(TOOLSETS).toContain('caller')
  })

  it('every tool\'s input schema is a plain object with properties; run\'s two forms are one object, still validated', async () => {
    const client = await connect('/mcp?toolsets=all')
    const { tools } = await client.listTools()
    for (const tool of tools) {
      const schema = tool.inputSchema as Record<string, unknown>
      expect(schema.type, tool.name).toBe('object')
      expect(schema.properties, tool.name).toBeTypeOf('object')
      for (const key of ['anyOf', 'oneOf', 'allOf', 'not', 'enum', '$ref']) expect(schema, `${tool.name}: top-level ${key}`).not.toHaveProperty(key)
    }
    const run = tools.find((t) => t.name === 'run')!
    expect(Object.keys(run.inputSchema.properties!).sort()).toEqual(['batch', 'input', 'op', 'stop_on_refusal'])
    expect(run.inputSchema.description).toMatch(/exactly one of these forms/)
    const cli = tools.find((t) => t.name === 'cli')!
    expect(Object.keys(cli.inputSchema.properties!).sort()).toEqual(['argv', 'line'])

    expect(dataOf(await client.callTool({ name: 'run', arguments: { op: 'captions' } })).mode).toBe('single')
    expect(dataOf(await client.callTool({ name: 'run', arguments: { batch: [{ op: 'surface' }] } })).mode).toBe('batch')
    const both = await client.callTool({ name: 'run', arguments: { op: 'captions', batch: [{ op: 'surface' }] } })
    expect(both.isError).toBe(true)
    expect((both.structuredContent as any).refuse.code).toBe('invalid_input')
  })
})

describe('MCP origins', () => {
  it('the host\'s own origin (loopback on its port) may initialize; foreign and rebinding origins may not', async () => {
    const port = new URL(host.base).port
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const res = await post('/mcp', { origin })
      expect(res.status, origin).toBe(200)
      await res.body?.cancel()
    }
    // A DNS-rebinding page: its Host and Origin agree with each other, and name a foreign host.
    const rebinding = await post('/mcp', { origin: `http://evil.example:${port}`, host: `evil.example:${port}` })
    expect(rebinding.status).toBe(403)
    for (const origin of ['https://evil.example', `http://127.0.0.1:${Number(port) + 1}`, 'null']) {
      const res = await post('/mcp', { origin })
      expect(res.status, origin).toBe(403)
      await res.body?.cancel()
    }
  })
})

describe('MCP dataset resources', () => {
  it('read a dataset by symbol, by symbol@timeframe and by id, alike; an unknown symbol is not_found', async () => {
    const client = await connect('/mcp')
    const text = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text
    const bySymbol = await text('ncm://datasets/SYN-DAILY')
    const dataset = JSON.parse(bySymbol)
    expect(dataset.symbol).toBe('SYN-DAILY')
    expect(await text(`ncm://datasets/${dataset.id}`)).toBe(bySymbol)
    expect(await text(`ncm://datasets/${encodeURIComponent(`SYN-DAILY@${dataset.timeframe}`)}`)).toBe(bySymbol)
    await expect(client.readResource({ uri: 'ncm://datasets/NO-SUCH' })).rejects.toThrow(/no dataset "NO-SUCH"/)
  })
})
