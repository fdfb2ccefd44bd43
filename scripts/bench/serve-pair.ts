// Bench fixture: the full app and a bare Fastify answering the same health data without envelope or hooks.
import Fastify from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { health } from '../../src/caller/ops/discovery/health.js'
import type { OperationContext } from '../../src/caller/operation.js'

const config = loadConfig({ ...process.env, PORT: '0', DATABASE_PATH: ':memory:', RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'silent' })
const app = await buildApp({ config })
await app.listen({ host: '127.0.0.1', port: 0 })

// The same handler with the same inputs; only the envelope, hooks, plugins and schema serializer are missing.
const bare = Fastify({ logger: false })
const ctx = {
  config, store: app.store, mill: app.mill, admission: app.admission, clock: { now: () => Date.now() },
} as unknown as OperationContext
bare.get('/health', async () => health.handler({}, ctx))
await bare.listen({ host: '127.0.0.1', port: 0 })

const port = (server: typeof bare) => (server.server.address() as { port: number }).port
process.stdout.write(JSON.stringify({ full: port(app as unknown as typeof bare), bare: port(bare) }) + '\n')
process.on('SIGTERM', async () => {
  await bare.close()
  await app.close()
  process.exit(0)
})
