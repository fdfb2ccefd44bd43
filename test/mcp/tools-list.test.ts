// A session-less tools/list is answered from bytes built once per selection (src/mcp/tools-list.ts): byte for byte what
// the SDK answers to the same listing, and every message or header the SDK would judge otherwise still goes to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { buildTestApp } from '../helper.js'
import { cachedToolsList, toolsListBytes } from '../../src/mcp/tools-list.js'

const ACCEPT = 'application/json, text/event-stream'

describe('session-less tools/list', () => {
  let app: FastifyInstance
  let base: string
  beforeAll(async () => {
    app = await buildTestApp()
    base = await app.listen({ host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await app?.close()
  })

  const post = async (message: unknown, { path = '/mcp', headers = {} }: { path?: string; headers?: Record<string, string> } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: JSON.stringify(message),
    })
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
  }

  // `_meta` in params sends the same request through the SDK's own server and transport.
  for (const [path, id] of [['/mcp', 7], ['/mcp?toolsets=all', 'an "id"\u2028 with escapes'], ['/mcp?toolsets=trading', 0]] as const) {
    it(`${path}, id ${JSON.stringify(id)}: the same bytes and type as the SDK's answer`, async () => {
      const cached = await post({ jsonrpc: '2.0', id, method: 'tools/list' }, { path })
      const sdk = await post({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: {} } }, { path })
      expect(sdk.status).toBe(200)
      expect(JSON.parse(sdk.text).result.tools.length).toBeGreaterThan(0)
      expect(cached).toEqual(sdk)
    })
  }

  it('an empty params and a supported protocol version are answered the same', async () => {
    const sdk = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: {} } })
    expect(await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, { headers: { 'mcp-protocol-version': SUPPORTED_PROTOCOL_VERSIONS[0]! } })).toEqual(sdk)
  })

  it('what the SDK refuses is still refused by it', async () => {
    const wrongAccept = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { headers: { accept: 'application/json' } })
    expect(wrongAccept.status).toBe(406)
    const wrongVersion = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { headers: { 'mcp-protocol-version': '1999-01-01' } })
    expect(wrongVersion.status).toBe(400)
    const badId = await post({ jsonrpc: '2.0', id: null, method: 'tools/list' })
    expect(badId.status).toBe(400)
  })

  it('only a plain tools/list with acceptable headers is taken from the cache', () => {
    const bytes = toolsListBytes([{ name: 'x' }])
    const headers = { accept: ACCEPT }
    const take = (body: unknown, h: Record<string, string> = headers) => cachedToolsList(body, h, SUPPORTED_PROTOCOL_VERSIONS, bytes)?.toString()
    expect(take({ jsonrpc: '2.0', id: 'a', method: 'tools/list' })).toBe('{"result":{"tools":[{"name":"x"}]},"jsonrpc":"2.0","id":"a"}')
    expect(take({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c' } })).toBeUndefined()
    expect(take({ jsonrpc: '2.0', id: 1, method: 'tools/list', extra: 1 })).toBeUndefined()
    expect(take({ jsonrpc: '2.0', id: 1.5, method: 'tools/list' })).toBeUndefined()
    expect(take({ jsonrpc: '2.0', method: 'tools/list' })).toBeUndefined()
    expect(take([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }])).toBeUndefined()
    expect(take({ jsonrpc: '2.0', id: 1, method: 'tools/call' })).toBeUndefined()
    expect(take({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'text/event-stream' })).toBeUndefined()
  })
})
