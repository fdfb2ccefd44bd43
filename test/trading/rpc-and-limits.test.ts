// The RPC prober inside the host against loopback servers, and the problem responses for 429 and 500.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { json } from '../helper.js'
import { buildTradingApp } from './helper.js'

const servers: Server[] = []
const urls: Record<'fast' | 'slow' | 'failing' | 'garbage', string> = { fast: '', slow: '', failing: '', garbage: '' }

async function serve(name: keyof typeof urls, handle: (body: string, res: import('node:http').ServerResponse) => void) {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => handle(body, res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

const rpc = (body: string, result: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result })

beforeAll(async () => {
  await serve('fast', (body, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(rpc(body, '0x100')))
  await serve('slow', (body, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(rpc(body, '0x101')), 300))
  await serve('failing', (_body, res) => void res.writeHead(502).end('bad gateway'))
  await serve('garbage', (_body, res) => void res.writeHead(200).end('%%%not json%%%'))
})
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** Polls the snapshot (bounded) until every endpoint has at least `samples` probes. */
async function probed(app: FastifyInstance, samples: number) {
  for (let i = 0; i < 200; i++) {
    const snap = json(await app.inject('/api/v6/rpc/snapshot'))
    if (snap.endpoints.every((e: { samples: number }) => e.samples >= samples)) return snap
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('endpoints were not probed')
}

describe('RPC probing in the host', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTradingApp({
      seed: 'none',
      env: { RPC_ENDPOINTS: [urls.fast, urls.slow, urls.failing, urls.garbage].join(','), RPC_PROBE_INTERVAL_MS: '100' },
    })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('probes every configured endpoint in the background and measures them', async () => {
    const snap = await probed(app, 2)
    expect(snap.configured).toBe(true)
    const by = (u: string) => snap.endpoints.find((e: { url: string }) => e.url === u)
    expect(by(urls.fast)).toMatchObject({ healthy: true, mode: 'json-rpc', success_rate: 1, last_result: { block_height: 256 } })
    expect(by(urls.slow).latency_ms.p50).toBeGreaterThanOrEqual(299)
    expect(by(urls.failing)).toMatchObject({ healthy: false, last_error: 'HTTP 502' })
    expect(by(urls.garbage).healthy).toBe(false)
  })

  it('/rpc/best is a healthy endpoint, and the panels and health show the probes', async () => {
    await probed(app, 2)
    const best = json(await app.inject('/api/v6/rpc/best'))
    expect([urls.fast, urls.slow]).toContain(best.endpoint.url)
    expect(best.healthy).toBe(2)
    const health = json(await app.inject('/api/v11/system/health'))
    expect(health.components.find((c: { name: string }) => c.name === 'rpc')).toMatchObject({ status: 'ok', configured: true, healthy: 2 })
    const page = await app.inject('/command-center')
    expect(page.body).toContain(urls.fast)
  })
})

describe('no healthy RPC endpoint', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTradingApp({ seed: 'none', env: { RPC_ENDPOINTS: `${urls.failing},${urls.garbage}`, RPC_PROBE_INTERVAL_MS: '100' } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('/rpc/best answers a 503 problem with Retry-After', async () => {
    await probed(app, 1)
    const res = await app.inject('/api/v6/rpc/best')
    expect(res.statusCode).toBe(503)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(res.headers['retry-after']).toBe('1')
    expect(json(res)).toMatchObject({ code: 'no_healthy_endpoint', endpoints: [{ success_rate: 0 }, { success_rate: 0 }] })
  })
})

describe('rate limit and internal errors as problems', () => {
  it('answers 429 with Retry-After once over the per-minute limit', async () => {
    const app = await buildTradingApp({ seed: 'none', env: { RATE_LIMIT_PER_MIN: '3' } })
    try {
      let res = await app.inject('/api/v11/system/mode')
      for (let i = 0; i < 5 && res.statusCode !== 429; i++) res = await app.inject('/api/v11/system/mode')
      expect(res.statusCode).toBe(429)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      expect(json(res)).toMatchObject({ code: 'rate_limited', status: 429 })
    } finally {
      await app.close()
    }
  })

  it('answers 500 with only the request id when storage fails, and /health says down', async () => {
    const app = await buildTradingApp({ seed: 'none' })
    try {
      await app.store.close()
      const res = await app.inject({ url: '/api/v11/datasets', headers: { 'x-request-id': 'req-trading-500' } })
      expect(res.statusCode).toBe(500)
      const problem = json(res)
      expect(problem).toMatchObject({ code: 'internal', status: 500 })
      expect(problem.detail).toBe('internal error; request id req-trading-500')
      expect(res.body).not.toMatch(/at .*\.ts:\d+/) // no stack
      const health = await app.inject('/health')
      expect(health.statusCode).toBe(503)
      expect(json(health)).toMatchObject({ status: 'down', checks: { database: { ok: false } } })
    } finally {
      await app.close()
    }
  })
})
