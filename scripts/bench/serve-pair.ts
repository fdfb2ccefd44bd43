// Bench fixture for bench:http: the full app, the same health handler on bare routes of the same host (outside the caller
// surface: no envelope, no caller hooks, no response schema), and a bare Fastify process-mate with no plugins at all.
import Fastify from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { health } from '../../src/caller/ops/discovery/health.js'
import type { OperationContext } from '../../src/caller/operation.js'

const HOST_BARE_PATH = '/api/bench/bare-health'
/** An identical twin of the host's bare route: measuring both tells the run's noise (an A/A control). */
const HOST_TWIN_PATH = '/api/bench/bare-health-twin'

const config = loadConfig({ ...process.env, PORT: '0', DATABASE_PATH: ':memory:', RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'silent' })
const app = await buildApp({ config })

// The same handler with the same inputs as GET /api/v1/health.
const ctx = {
  config, store: app.store, mill: app.mill, admission: app.admission, clock: { now: () => Date.now() },
} as unknown as OperationContext
const bareHealth = async () => health.handler({}, ctx)
// Registered on the host root, so the host-wide plugins (security headers, request id, metrics) apply as to every route.
app.get(HOST_BARE_PATH, bareHealth)
app.get(HOST_TWIN_PATH, bareHealth)
await app.listen({ host: '127.0.0.1', port: 0 })

const bare = Fastify({ logger: false })
bare.get('/health', bareHealth)
await bare.listen({ host: '127.0.0.1', port: 0 })

const base = (server: { server: { address(): unknown } }) => `http://127.0.0.1:${(server.server.address() as { port: number }).port}`
process.stdout.write(JSON.stringify({
  full: `${base(app)}/api/v1/health`,
  hostBare: base(app) + HOST_BARE_PATH,
  hostTwin: base(app) + HOST_TWIN_PATH,
  bare: `${base(bare)}/health`,
}) + '\n')
process.on('SIGTERM', async () => {
  await bare.close()
  await app.close()
  process.exit(0)
})
