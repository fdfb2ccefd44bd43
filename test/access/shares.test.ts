// Issue #25 item 7 over a real socket: shares per principal beside the global caps. One anonymous client cannot fill the
// job queue for everyone (JOBS_PER_CLIENT), cannot evict an admin's MCP session however many it opens (its own go
// first), cannot hold more streams than SSE_STREAMS_PER_CLIENT (standalone MCP streams included), and a chunked MCP
// message is held to its tool's body limit by the bytes read.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
import { MAX_SESSIONS } from '../../src/mcp/plugin.js'

const ADMIN_TOKEN = 'shares-admin-token-0123456789'
const host = listeningTestApp({
  env: { ADMIN_TOKEN, HEAVY_ACCESS: 'open', TRUST_PROXY: 'true', JOBS_PER_CLIENT: '2', MILL_QUEUE: '32', SSE_STREAMS_PER_CLIENT: '2', MCP_SESSIONS_PER_CLIENT: '4' },
})
const MCP_ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'shares', version: '1' } } }

async function post(path: string, body: unknown, headers: Record<string, string>) {
  const res = await request(host.base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const text = await res.body.text()
  return { status: res.statusCode, headers: res.headers, text }
}

/** Initializes an MCP session as `headers` says; answers its id. */
async function initialize(headers: Record<string, string>): Promise<string> {
  const res = await post('/mcp', INIT, { ...MCP_ACCEPT, ...headers })
  expect(res.status, res.text).toBe(200)
  return res.headers['mcp-session-id'] as string
}

const ping = async (session: string, headers: Record<string, string>) =>
  (await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }, { ...MCP_ACCEPT, ...headers, 'mcp-session-id': session })).status

describe('per-principal shares', () => {
  beforeAll(() => host.app.admission.override('live-bound'))
  afterAll(() => host.app.admission.override(null))

  it('one client holds at most JOBS_PER_CLIENT unfinished jobs; another is still accepted', async () => {
    const hard = { dimacs: pigeonholeDimacs(11), want_model: false, timeout_ms: 30_000 }
    const greedy = { 'x-forwarded-for': '203.0.113.1', prefer: 'respond-async' }
    const ids: string[] = []
    for (let i = 0; i < 2; i++) {
      const res = await post('/api/v1/sat', hard, greedy)
      expect(res.status, res.text).toBe(202)
      ids.push(JSON.parse(res.text).data.id)
    }
    const third = await post('/api/v1/sat', hard, greedy)
    expect(third.status).toBe(503)
    expect(third.headers['retry-after']).toBeDefined()
    expect(JSON.parse(third.text).refuse).toMatchObject({ code: 'occupied', hints: { limit: 'JOBS_PER_CLIENT', value: 2 } })
    const other = await post('/api/v1/sat', { dimacs: 'p cnf 1 1\n1 0\n' }, { 'x-forwarded-for': '198.51.100.2', prefer: 'respond-async' })
    expect(other.status, other.text).toBe(202)
    for (const id of ids) await request(`${host.base}/api/v1/jobs/${id}`, { method: 'DELETE', headers: { 'x-forwarded-for': '203.0.113.1' } }).then((r) => r.body.dump())
    // Its jobs ended, the client has its share again.
    const again = await post('/api/v1/sat', { dimacs: 'p cnf 1 1\n1 0\n' }, greedy)
    expect(again.status, again.text).toBe(202)
  })

  // Found with 300 from one address; its share (4 here) is reached after a few, so 40 prove the same.
  it('an anonymous client initializing again and again evicts only its own MCP sessions, never an admin\'s', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
    const adminSession = await initialize(admin)
    const anonymous = { 'x-forwarded-for': '203.0.113.5' }
    const theirs: string[] = []
    for (let i = 0; i < 40; i++) theirs.push(await initialize(anonymous))
    expect(await ping(adminSession, admin)).toBe(200)
    // The anonymous client kept only its share: its newest sessions.
    expect(await ping(theirs.at(-1)!, anonymous)).toBe(200)
    expect(await ping(theirs[0]!, anonymous)).toBe(404)
    expect(await ping(theirs.at(-5)!, anonymous)).toBe(404)
    expect(host.app.config.mcpSessionsPerClient).toBeLessThan(MAX_SESSIONS)
    // A session is its principal's: another client with its id is told it is unknown.
    expect(await ping(adminSession, anonymous)).toBe(404)
  }, 60_000)

  it('standalone MCP streams count toward SSE_STREAMS_PER_CLIENT', async () => {
    const client = { 'x-forwarded-for': '203.0.113.9' }
    const sessions = [await initialize(client), await initialize(client), await initialize(client)]
    const opened: Array<{ status: number; close: () => void }> = []
    for (const session of sessions) {
      const controller = new AbortController()
      const res = await request(`${host.base}/mcp`, {
        method: 'GET', signal: controller.signal, headers: { accept: 'text/event-stream', 'mcp-session-id': session, ...client },
      })
      if (res.statusCode !== 200) await res.body.text().then((t) => expect(JSON.parse(t)).toMatchObject({ code: 'over_limit' }))
      opened.push({ status: res.statusCode, close: () => controller.abort() })
    }
    expect(opened.map((s) => s.status)).toEqual([200, 200, 422])
    for (const s of opened) s.close()
  })

  it('a chunked MCP message over its tool\'s body limit is refused by the bytes read', async () => {
    const limit = host.app.config.bodyLimitBytes
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'kv', arguments: { pad: 'x'.repeat(limit + 1024) } } })
    const answer = await chunkedPost('/mcp', body)
    expect(answer).toMatch(/payload_too_large/)
  })
})

/** A POST with Transfer-Encoding: chunked (no Content-Length) over a raw socket; answers the response text. */
function chunkedPost(path: string, body: string): Promise<string> {
  const { hostname, port } = new URL(host.base)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
      if (/\r\n0\r\n\r\n$|"jsonrpc"[^]*\}\s*$/.test(text)) socket.end()
    })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`)
    for (let at = 0; at < body.length; at += 64 * 1024) {
      const part = body.slice(at, at + 64 * 1024)
      socket.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`)
    }
    socket.write('0\r\n\r\n')
  })
}
