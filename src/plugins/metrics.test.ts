import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { afterEach, describe, expect, it } from 'vitest'
import metricsPlugin, { memoryBudget, UNMATCHED_ROUTE } from './metrics.js'

/** The plugin needs store, mill and admission: stand-ins with fixed figures, so every number below is known. */
async function appWithMetrics(more?: (app: FastifyInstance) => Promise<void>): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(fp(async (a) => {
    a.decorate('store', { backend: 'sqlite', path: ':memory:', fileSizes: () => ({ file: null, wal: null }), poolUse: () => null } as never)
  }, { name: 'ncm-store' }))
  await app.register(fp(async (a) => {
    a.decorate('mill', { stats: () => ({ threads: 2, max_queue: 8, queue_size: 1, running: 3, completed: 40, utilization: 0.25, timeouts: 1, rejected_full: 0 }) } as never)
  }, { name: 'ncm-mill' }))
  await app.register(fp(async (a) => {
    a.decorate('admission', { state: () => 'live-bound', eventLoopDelayMs: () => 12.5, eventLoopUtilization: () => 0.125 } as never)
  }, { name: 'ncm-admission' }))
  let t = Date.parse('2026-01-01T00:00:00Z')
  await app.register(metricsPlugin, { now: () => (t += 1000) })
  app.get('/api/v1/items/:id', async () => ({ ok: true }))
  app.get('/api/v1/boom', async () => {
    throw new Error('boom')
  })
  app.get('/admin', async () => 'page')
  app.get('/api/v1/refused/:status', async (req, reply) => reply.code(Number((req.params as { status: string }).status)).send({ ok: false }))
  await more?.(app)
  await app.ready()
  return app
}

let app: FastifyInstance | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

describe('metrics plugin', () => {
  it('counts requests by surface, route pattern (never the raw URL) and status', async () => {
    app = await appWithMetrics()
    for (const id of ['1', '2', '3']) await app.inject(`/api/v1/items/${id}?x=${id}`)
    await app.inject('/api/v1/boom')
    await app.inject('/admin')
    await app.inject('/no/such/path/42')
    const s = app.metrics.snapshot()
    expect(s.requests.total).toBe(6)
    expect(s.requests.by_status).toEqual({ 200: 4, 404: 1, 500: 1 })
    expect(s.requests.by_route.map((r) => [r.method, r.route, r.status, r.count, r.surface])).toEqual([
      ['GET', '/api/v1/items/:id', 200, 3, 'caller'],
      ['GET', UNMATCHED_ROUTE, 404, 1, 'trading'],
      ['GET', '/admin', 200, 1, 'admin'],
      ['GET', '/api/v1/boom', 500, 1, 'caller'],
    ])
    expect(s.requests.by_surface.caller).toMatchObject({ count: 4, server_errors: 1, refusals: 0 })
    expect(s.requests.by_surface.trading).toMatchObject({ count: 1, server_errors: 0, refusals: 1 })
    expect(s.error_rate).toBeCloseTo(1 / 6)
    expect(s.refusal_rate).toBeCloseTo(1 / 6)
    expect(s.latency.count).toBe(6)
    expect(s.latency.p50_ms).not.toBeNull()
    expect(s.latency.p50_ms!).toBeLessThanOrEqual(s.latency.p95_ms!)
    expect(s.latency.p95_ms!).toBeLessThanOrEqual(s.latency.p99_ms!)
    expect(s.event_loop).toEqual({ delay_ms: 12.5, utilization: 0.125 })
    expect(s.mill).toMatchObject({ threads: 2, running: 3 })
    expect(s.database).toEqual({ backend: 'sqlite', file_bytes: null, wal_bytes: null, pool: null, note: 'in-memory database: no file to measure' })
    expect(s.memory.rss_bytes).toBeGreaterThan(0)
  })

  it('says so, with nulls, before the first request', async () => {
    app = await appWithMetrics()
    const s = app.metrics.snapshot()
    expect(s.requests.total).toBe(0)
    expect(s.error_rate).toBeNull()
    expect(s.latency).toMatchObject({ count: 0, p50_ms: null, p95_ms: null, p99_ms: null })
    expect(s.notes).toEqual(['no request answered yet: latency percentiles and rates are null'])
  })

  it('renders valid Prometheus text with the same figures', async () => {
    app = await appWithMetrics()
    await app.inject('/api/v1/items/7')
    await app.inject('/api/v1/boom')
    const text = app.metrics.prometheus()
    expect(text.endsWith('\n')).toBe(true)
    const declared = new Map<string, string>()
    for (const line of text.trimEnd().split('\n')) {
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|summary|histogram|untyped)$/.exec(line)
      if (type) {
        expect(declared.has(type[1]!), `${type[1]} declared twice`).toBe(false)
        declared.set(type[1]!, type[2]!)
        continue
      }
      if (line.startsWith('# HELP ')) continue
      // name{label="value",…} value — the text exposition format 0.0.4
      const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*",?)*\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/.exec(line)
      expect(sample, line).not.toBeNull()
      const family = sample![1]!.replace(/_(sum|count)$/, '')
      expect(declared.has(sample![1]!) || declared.has(family), `${sample![1]} has no TYPE line before it`).toBe(true)
    }
    expect(text).toContain('ncm_http_requests_total{surface="caller",method="GET",route="/api/v1/items/:id",status="200"} 1')
    expect(text).toContain('ncm_http_requests_total{surface="caller",method="GET",route="/api/v1/boom",status="500"} 1')
    expect(text).toContain('ncm_http_request_duration_seconds_count{surface="caller"} 2')
    expect(text).toContain('ncm_mill_queue_size 1')
    expect(text).toContain('ncm_event_loop_delay_seconds 0.0125')
    expect(text).toContain('ncm_occupancy{state="live-bound"} 1')
    expect(text).not.toContain('ncm_database_bytes')
  })

  it('counts the 501/503 refusals by design with the 4xx refusals, apart from server faults', async () => {
    app = await appWithMetrics()
    for (const status of [501, 503, 503, 429, 400]) await app.inject(`/api/v1/refused/${status}`)
    await app.inject('/api/v1/boom')
    const s = app.metrics.snapshot()
    expect(s.requests.by_surface.caller).toMatchObject({ count: 6, refusals: 5, server_errors: 1 })
    expect(s.error_rate).toBeCloseTo(1 / 6, 10)
    expect(s.refusal_rate).toBeCloseTo(5 / 6, 10)
    expect(s.requests.by_status).toEqual({ 400: 1, 429: 1, 500: 1, 501: 1, 503: 2 })
  })

  it('labels each route by its pattern through its own callback: a prefix root with and without its slash, HEAD, a route with an onResponse of its own', async () => {
    const own: string[] = []
    app = await appWithMetrics(async (a) => {
      await a.register(async (child) => {
        child.get('/', async () => ({ ok: true }))
        child.get('/own', { onResponse: (req, _reply, done) => { own.push(req.url); done() } }, async () => ({ ok: true }))
      }, { prefix: '/api/v1/scoped' })
    })
    await app.inject('/api/v1/scoped')
    await app.inject('/api/v1/scoped')
    await app.inject('/api/v1/scoped/')
    await app.inject({ method: 'HEAD', url: '/api/v1/items/1' })
    await app.inject('/api/v1/scoped/own')
    await app.inject('/api/v1/nowhere')
    expect(own).toEqual(['/api/v1/scoped/own'])
    expect(app.metrics.snapshot().requests.by_route.map((r) => [r.method, r.route, r.status, r.count])).toEqual([
      ['GET', '/api/v1/scoped', 200, 3],
      ['GET', UNMATCHED_ROUTE, 404, 1],
      ['HEAD', '/api/v1/items/:id', 200, 1],
      ['GET', '/api/v1/scoped/own', 200, 1],
    ])
  })

  it('never reports a percentile above the maximum', async () => {
    app = await appWithMetrics()
    for (let i = 0; i < 40; i++) await app.inject(`/api/v1/items/${i}`)
    const s = app.metrics.snapshot()
    for (const latency of [s.latency, s.requests.by_surface.caller.latency]) {
      expect(latency.p50_ms!).toBeLessThanOrEqual(latency.p95_ms!)
      expect(latency.p95_ms!).toBeLessThanOrEqual(latency.p99_ms!)
      expect(latency.p99_ms!).toBeLessThanOrEqual(latency.max_ms!)
    }
  })
})

describe('memoryBudget', () => {
  it('splits RSS by component: the parts add up to RSS, and what is left is the budget less RSS', () => {
    const b = memoryBudget(120 * 1024 * 1024, { memory: () => ({ workers: 2, heap_bytes: 1_000_000 }) })
    const sum = b.components.reduce((s, c) => s + (c.bytes ?? 0), 0)
    expect(b.remaining_bytes).toBe(b.budget_bytes - b.rss_bytes)
    expect(b.components.find((c) => c.component === 'mill_workers')!.bytes).toBe(1_000_000)
    expect(Math.abs(sum - b.rss_bytes)).toBeLessThan(b.rss_bytes * 0.001 + 1) // native is the remainder
    expect(b.heap_spaces.some((s) => s.space === 'old_space' && s.used_bytes > 0)).toBe(true)
    const unknown = memoryBudget(1, {})
    expect(unknown.components.find((c) => c.component === 'mill_workers')!.bytes).toBeNull()
    expect(unknown.remaining_bytes).toBeLessThan(0)
  })
})
