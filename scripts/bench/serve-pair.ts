// Bench fixture for bench:http: the full app, and variants of it built up one host feature at a time around the same
// health handler (a bisection of the per-request cost), each a Fastify instance in this process on its own port.
import type { IncomingMessage } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { buildApp, requestIdOf } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { health } from '../../src/caller/ops/discovery/health.js'
import type { OperationContext } from '../../src/caller/operation.js'
import limitsPlugin from '../../src/plugins/limits.js'
import metricsPlugin from '../../src/plugins/metrics.js'
import { scaleOutReport } from '../../src/plugins/scale-out.js'
import { databaseCheck } from '../../src/trading/system-health.js'

const HOST_BARE_PATH = '/api/bench/bare-health'
/** An identical twin of the host's bare route: measuring both tells the run's noise (an A/A control). */
const HOST_TWIN_PATH = '/api/bench/bare-health-twin'
/** The limiter's quota for the bench: high enough that no request is refused, so its bookkeeping is what is measured. */
const BENCH_QUOTA = 10_000_000

const config = loadConfig({ ...process.env, PORT: '0', DATABASE_PATH: ':memory:', RATE_LIMIT_PER_MIN: String(BENCH_QUOTA), LOG_LEVEL: 'silent' })
const app = await buildApp({ config })

// The same handler with the same inputs as GET /api/v1/health.
const ctx = {
  config, store: app.store, mill: app.mill, admission: app.admission, clock: { now: () => Date.now() }, host: app,
} as unknown as OperationContext
const bareHealth = async () => health.handler({}, ctx)
// Registered on the host root, so the host-wide plugins (security headers, request id, metrics, the access policy's
// door: anyone may read it, as /api/v1/health) apply as to every route.
const door = { config: { access: 'host.read' as const } }
app.get(HOST_BARE_PATH, door, bareHealth)
app.get(HOST_TWIN_PATH, door, bareHealth)
await app.listen({ host: '127.0.0.1', port: 0 })
// /health's document, measured per request as the platform route measures it (the store's SELECT 1, the shared Redis
// when there is one): a bare route serving a document frozen at start skipped the probes the host's route pays for.
const hostAnswer = JSON.parse((await app.inject({ method: 'GET', url: '/health' })).body) as { started_at: string }
const benchStartedAt = Date.now()
const barePlatformHealth = async () => {
  const database = await databaseCheck(app.store)
  const scaleOut = await scaleOutReport(app)
  return {
    status: !database.ok ? 'down' : scaleOut.redis && !scaleOut.redis.reachable ? 'degraded' : 'ok',
    version: '11.0.0',
    mode: 'paper',
    uptime_s: Math.round((Date.now() - benchStartedAt) / 100) / 10,
    started_at: hostAnswer.started_at,
    checks: { database: { ok: database.ok, detail: database.detail, latency_ms: database.latency_ms } },
    scale_out: scaleOut,
    store: database.store,
  }
}
// The same fields as the host's answer (its serializer orders them by schema), or the comparison means nothing.
const shapeOf = (x: unknown): unknown =>
  x !== null && typeof x === 'object' ? Object.entries(x).map(([k, v]) => [k, shapeOf(v)]).sort() : typeof x
if (JSON.stringify(shapeOf(await barePlatformHealth())) !== JSON.stringify(shapeOf(hostAnswer))) {
  throw new Error('the bare /health document no longer has the shape of the host\'s: update serve-pair.ts')
}

/** A bare Fastify with the host's features up to `level` (0 none … 4 all host-wide ones), serving the health handler. */
async function variant(level: number): Promise<FastifyInstance> {
  const v = level >= 1
    ? Fastify({ logger: false, requestIdHeader: false, genReqId: (req: IncomingMessage) => requestIdOf(req.headers['x-request-id']) })
    : Fastify({ logger: false })
  if (level >= 2) await v.register(limitsPlugin, { rateLimitPerMin: level >= 4 ? BENCH_QUOTA : 0 })
  if (level >= 3) {
    // the metrics plugin reads the store, mill and admission only for its snapshots: the host's own, by name
    await v.register(fp(async (a) => { a.decorate('store', app.store) }, { name: 'ncm-store' }))
    await v.register(fp(async (a) => { a.decorate('mill', app.mill) }, { name: 'ncm-mill' }))
    await v.register(fp(async (a) => { a.decorate('admission', app.admission) }, { name: 'ncm-admission' }))
    await v.register(metricsPlugin)
  }
  v.get('/api/v1/health', bareHealth)
  v.get('/health', barePlatformHealth)
  await v.listen({ host: '127.0.0.1', port: 0 })
  return v
}
const variants = [await variant(0), await variant(1), await variant(2), await variant(3), await variant(4)]

const base = (server: { server: { address(): unknown } }) => `http://127.0.0.1:${(server.server.address() as { port: number }).port}`
process.stdout.write(JSON.stringify({
  full: `${base(app)}/api/v1/health`,
  platform: `${base(app)}/health`,
  hostBare: base(app) + HOST_BARE_PATH,
  hostTwin: base(app) + HOST_TWIN_PATH,
  bare: `${base(variants[0]!)}/api/v1/health`,
  barePlatform: `${base(variants[0]!)}/health`,
  plusRequestId: `${base(variants[1]!)}/api/v1/health`,
  plusHeaders: `${base(variants[2]!)}/api/v1/health`,
  plusMetrics: `${base(variants[3]!)}/api/v1/health`,
  plusLimiter: `${base(variants[4]!)}/api/v1/health`,
}) + '\n')
process.on('SIGTERM', async () => {
  for (const v of variants) await v.close()
  await app.close()
  process.exit(0)
})
