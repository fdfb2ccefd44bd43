// The client snippets of docs/mcp.md, each a JSON file in docs/mcp-clients/: parsed as its client reads it, checked
// against what the server serves (default port, /mcp, a Streamable HTTP transport, a valid toolset selection, a bearer
// header), then used — its URL and header, with the token the snippet asks for — by the SDK's client on a real socket.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { listeningTestApp } from '../helper.js'
import { loadConfig } from '../../src/config.js'
import { REPO_ROOT } from '../../src/version.js'
import { MCP_PATH } from '../../src/mcp/plugin.js'
import { mcpTools, selectTools } from '../../src/mcp/tools.js'
import { requestedToolsets } from '../../src/mcp/toolsets.js'
import { registry } from '../../src/caller/registry.js'

const ADMIN_TOKEN = 'mcp-snippets-admin-token-0123456789'
const SERVER_NAME = 'ncm-hub'
const SNIPPETS = join(REPO_ROOT, 'docs', 'mcp-clients')
const DOC = readFileSync(join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8')

/** What a snippet makes its client do: the URL it connects to and the Authorization header it sends with a token. */
interface Connection {
  url: string
  authorization: (token: string) => string
}

type Json = Record<string, any>

/** `${NAME}`-style placeholders a client fills in, each resolved to what the snippet says it stands for. */
function resolve(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    expect(values, `placeholder \${${name}}`).toHaveProperty([name])
    return values[name]!
  })
}

const CLIENTS: Record<string, (config: Json) => Connection> = {
  // Claude Desktop starts stdio servers only: mcp-remote bridges stdio to Streamable HTTP.
  'claude-desktop.json': (config) => {
    const server = config.mcpServers[SERVER_NAME]
    expect(server.command).toBe('npx')
    const args: string[] = server.args
    const bridge = args.findIndex((arg) => arg === 'mcp-remote' || arg.startsWith('mcp-remote@'))
    expect(bridge).toBeGreaterThanOrEqual(0)
    // mcp-remote's strategies are http-first, sse-first, http-only, sse-only: this server speaks Streamable HTTP only.
    expect(args[args.indexOf('--transport') + 1]).toBe('http-only')
    const header = args[args.indexOf('--header') + 1]!
    return {
      url: args[bridge + 1]!,
      authorization: (token) => {
        const env = Object.fromEntries(Object.entries(server.env as Record<string, string>).map(([k, v]) => [k, v.replace('YOUR_NCM_TOKEN', token)]))
        const [name, ...value] = resolve(header, env).split(':')
        expect(name).toBe('Authorization')
        return value.join(':')
      },
    }
  },
  // Cursor: a `url` entry is a remote server (Streamable HTTP); `${env:NAME}` is read from the environment.
  'cursor.json': (config) => {
    const server = config.mcpServers[SERVER_NAME]
    expect(server).not.toHaveProperty('command')
    return { url: server.url, authorization: (token) => resolve(server.headers.Authorization, { 'env:NCM_TOKEN': token }) }
  },
  // VS Code (.vscode/mcp.json): type http; `${input:id}` prompts for a secret declared in `inputs`.
  'vscode.json': (config) => {
    const server = config.servers[SERVER_NAME]
    expect(server.type).toBe('http')
    const input = config.inputs.find((i: Json) => i.id === 'ncm-token')
    expect(input).toMatchObject({ type: 'promptString', password: true })
    return { url: server.url, authorization: (token) => resolve(server.headers.Authorization, { 'input:ncm-token': token }) }
  },
  // MCP Inspector (--config file --server name): type streamable-http; the token goes in its Authentication field.
  'inspector.json': (config) => {
    const server = config.mcpServers[SERVER_NAME]
    expect(server.type).toBe('streamable-http')
    return { url: server.url, authorization: (token) => `Bearer ${token}` }
  },
}

const host = listeningTestApp({ env: { ADMIN_TOKEN } })
const clients: Client[] = []
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined)
})

describe.each(Object.keys(CLIENTS))('MCP client snippet %s', (file) => {
  const text = readFileSync(join(SNIPPETS, file), 'utf8')
  const connection = CLIENTS[file]!(JSON.parse(text) as Json)

  it('is the snippet docs/mcp.md shows', () => {
    expect(DOC).toContain(text.trim())
  })

  it('names what the server serves: the default port, /mcp, a valid toolset selection', () => {
    const url = new URL(connection.url)
    expect(url.origin).toBe(`http://localhost:${loadConfig({}).port}`)
    expect(url.pathname).toBe(MCP_PATH)
    expect(() => requestedToolsets(Object.fromEntries(url.searchParams), undefined)).not.toThrow()
    expect(connection.authorization('t0k3n')).toBe('Bearer t0k3n')
  })

  it('connects with the SDK client to its URL on a running host and lists the tools it selects', async () => {
    const url = new URL(connection.url)
    const client = new Client({ name: `snippet-${file}`, version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(url.pathname + url.search, host.base), {
      requestInit: { headers: { authorization: connection.authorization(ADMIN_TOKEN) } },
    })
    await client.connect(transport)
    clients.push(client)
    const { tools } = await client.listTools()
    const selection = requestedToolsets(Object.fromEntries(url.searchParams), undefined)
    expect(tools.map((t) => t.name)).toEqual(selectTools(mcpTools(registry), selection).map((t) => t.name))
    // the bearer reached the server: a heavy tool (run:heavy) answers
    const sat = await client.callTool({ name: 'sat', arguments: { dimacs: 'p cnf 1 1\n1 0\n' } })
    expect(sat.isError, JSON.stringify(sat.structuredContent)).toBeFalsy()
  })
})
