import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRpcProber, pickBest, type EndpointSnapshot } from './rpc-prober.js'

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void

const SLOW_MS = 150

const handlers: Record<string, Handler> = {
  fast: (_req, body, res) => rpcAnswer(res, body, '0x1b4'),
  slow: (_req, body, res) => void setTimeout(() => rpcAnswer(res, body, '0x1b5'), SLOW_MS),
  failing: (_req, _body, res) => void res.writeHead(500).end('upstream exploded'),
  garbage: (_req, _body, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'),
  rpcError: (_req, body, res) =>
    void res.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32601, message: 'Method not found' } })),
  getOnly: (req, _body, res) =>
    req.method === 'GET' ? void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok') : void res.writeHead(405).end(),
  hang: () => undefined,
}

function rpcAnswer(res: ServerResponse, body: string, result: string) {
  const { id, method } = JSON.parse(body) as { id: number; method: string }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'eth_blockNumber' ? result : 42 }))
}

const servers: Server[] = []
const url: Record<string, string> = {}
const seenMethods: string[] = []

beforeAll(async () => {
  for (const [name, handler] of Object.entries(handlers)) {
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => { body += c.toString() })
      req.on('end', () => {
        if (req.method === 'POST' && body.startsWith('{')) seenMethods.push((JSON.parse(body) as { method: string }).method)
        handler(req, body, res)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    servers.push(server)
    url[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  }
})

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

const byUrl = (endpoints: EndpointSnapshot[], u: string) => endpoints.find((e) => e.url === u)!

describe('rpc prober against loopback servers', () => {
  it('measures each endpoint and tells healthy from failing, garbage and erroring ones', async () => {
    const prober = createRpcProber({
      endpoints: [url.fast!, url.slow!, url.failing!, url.garbage!, url.rpcError!, url.getOnly!],
      intervalMs: 60_000,
      timeoutMs: 5000,
    })
    try {
      for (let i = 0; i < 3; i++) await prober.probeOnce()
      const snap = prober.snapshot()
      expect(snap.configured).toBe(true)
      expect(snap.rounds).toBe(3)

      const fast = byUrl(snap.endpoints, url.fast!)
      expect(fast).toMatchObject({ healthy: true, samples: 3, success_rate: 1, mode: 'json-rpc', last_error: null })
      expect(fast.last_result).toMatchObject({ kind: 'json-rpc', method: 'eth_blockNumber', block_height: 0x1b4 })
      expect(fast.latency_ms.p50).toBeGreaterThan(0)
      expect(fast.latency_ms.p95).toBeGreaterThanOrEqual(fast.latency_ms.p50!)

      const slow = byUrl(snap.endpoints, url.slow!)
      expect(slow.healthy).toBe(true)
      expect(slow.last_result).toMatchObject({ block_height: 0x1b5 })
      // The server waits SLOW_MS before answering, so no measured latency can be shorter.
      expect(slow.latency_ms.p50).toBeGreaterThanOrEqual(SLOW_MS - 1)

      const failing = byUrl(snap.endpoints, url.failing!)
      expect(failing).toMatchObject({ healthy: false, success_rate: 0, last_error: 'HTTP 500', last_result: null })
      expect(failing.latency_ms.p50).toBeNull()

      const garbage = byUrl(snap.endpoints, url.garbage!)
      expect(garbage.healthy).toBe(false)
      expect(garbage.last_error).toMatch(/not JSON/)

      const rpcError = byUrl(snap.endpoints, url.rpcError!)
      expect(rpcError.healthy).toBe(false)
      expect(rpcError.last_error).toBe('JSON-RPC error -32601: Method not found')

      const getOnly = byUrl(snap.endpoints, url.getOnly!)
      expect(getOnly).toMatchObject({ healthy: true, mode: 'http-get', method: null })
      expect(getOnly.last_result).toMatchObject({ kind: 'http-get', http_status: 200, bytes: 2 })

      expect([url.fast, url.slow, url.getOnly]).toContain(prober.best()!.url)
    } finally {
      await prober.stop()
    }
  })

  it('picks the only healthy endpoint as best, and none when none is healthy', async () => {
    const prober = createRpcProber({ endpoints: [url.failing!, url.fast!, url.garbage!], intervalMs: 60_000 })
    try {
      expect(prober.best()).toBeNull() // nothing measured yet
      await prober.probeOnce()
      expect(prober.best()!.url).toBe(url.fast)
    } finally {
      await prober.stop()
    }
    const broken = createRpcProber({ endpoints: [url.failing!, url.garbage!], intervalMs: 60_000 })
    try {
      await broken.probeOnce()
      expect(broken.best()).toBeNull()
    } finally {
      await broken.stop()
    }
  })

  it('times out a hanging endpoint and records the error', async () => {
    const prober = createRpcProber({ endpoints: [url.hang!], intervalMs: 60_000, timeoutMs: 200 })
    try {
      await prober.probeOnce()
      const [hang] = prober.snapshot().endpoints
      expect(hang).toMatchObject({ healthy: false, samples: 1, success_rate: 0 })
      expect(hang!.last_error).toMatch(/timeout/i)
    } finally {
      await prober.stop()
    }
  })

  it('keeps a sliding window of the last samples', async () => {
    const prober = createRpcProber({ endpoints: [url.fast!], intervalMs: 60_000, window: 4 })
    try {
      for (let i = 0; i < 7; i++) await prober.probeOnce()
      expect(prober.snapshot().endpoints[0]).toMatchObject({ samples: 4, window: 4 })
    } finally {
      await prober.stop()
    }
  })

  it('honours a per-URL method or GET mode from the fragment, and redacts credentials', async () => {
    const withMethod = `${url.fast!}?apikey=secret#jsonrpc=getblockcount`
    const prober = createRpcProber({ endpoints: [withMethod, `${url.getOnly!}#get`], intervalMs: 60_000 })
    try {
      seenMethods.length = 0
      await prober.probeOnce()
      const [rpc, get] = prober.snapshot().endpoints
      expect(seenMethods).toEqual(['getblockcount'])
      expect(rpc!.url).toBe(`${url.fast!}***`) // scheme, host and port only: the query and fragment are hidden
      expect(rpc).toMatchObject({ method: 'getblockcount', healthy: true })
      expect(rpc!.last_result).toMatchObject({ block_height: 42 })
      expect(get).toMatchObject({ mode: 'http-get', healthy: true })
    } finally {
      await prober.stop()
    }
  })

  it('with no endpoints it is not configured and start() does nothing', async () => {
    const prober = createRpcProber({ endpoints: [], intervalMs: 1000 })
    prober.start()
    expect(prober.snapshot()).toMatchObject({ configured: false, endpoints: [], rounds: 0 })
    await prober.stop()
  })
})

describe('pickBest', () => {
  const endpoint = (url: string, p50: number | null, successRate: number, healthy = true): EndpointSnapshot => ({
    url, mode: 'json-rpc', method: 'eth_blockNumber', samples: 10, window: 20,
    latency_ms: { p50, p95: p50, last: p50 }, success_rate: successRate, healthy,
    last_probe_at: null, last_ok_at: null, last_error: null, last_error_at: null, last_result: null,
  })

  it('prefers the lowest p50, then the higher success rate, and skips unhealthy endpoints', () => {
    expect(pickBest([endpoint('a', 30, 1), endpoint('b', 10, 0.9), endpoint('c', 5, 1, false)])!.url).toBe('b')
    expect(pickBest([endpoint('a', 10, 0.8), endpoint('b', 10, 0.95)])!.url).toBe('b')
    expect(pickBest([endpoint('a', null, 0, false)])).toBeNull()
  })
})
