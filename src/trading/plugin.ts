// The trading platform as one encapsulated plugin: /health, /api/v11, /api/v10, /api/v6 and /command-center.
import type { FastifyInstance } from 'fastify'
import type { TradingContext } from './context.js'
import { createCycleRunner } from './cycle.js'
import { useProblems } from '../plugins/problem.js'
import { createRpcProber } from './rpc-prober.js'
import { seedIfFirstStart, type SeedLevel } from './seed.js'
import { createTradingService, type TradingService } from './service.js'
import { defineTradingJobs } from './jobs.js'
import jobRoutes from '../jobs/routes.js'
import { createSystem } from './system.js'
import rootRoutes from './routes/root.js'
import v11Routes from './routes/v11.js'
import readbackRoutes from './routes/readback.js'
import v10Routes from './routes/v10.js'
import v6Routes from './routes/v6.js'

export interface TradingPluginOptions {
  /** Synthetic datasets written on a database's first start: `full` (default), `small` (tests), or `none`. */
  seed?: SeedLevel
  /** The research service, when the host shares it with another surface (the MCP endpoint); else one of its own. */
  service?: TradingService
}

export default async function tradingPlugin(app: FastifyInstance, opts: TradingPluginOptions) {
  // Instance-wide things arrive as decorators; the options carry only what is particular to this registration.
  const { config, clock } = app
  const store = app.store
  const startedAt = clock.now()
  const seeded = await seedIfFirstStart(store.sql, opts.seed ?? 'full', startedAt)
  if (seeded.length) app.log.info({ datasets: seeded }, 'seeded synthetic datasets')

  const service = opts.service ?? createTradingService({ store, mill: app.mill, admission: app.admission, clock, barsCacheBytes: config.barsCacheBytes, runRetention: config.runRetention })
  const prober = createRpcProber({ endpoints: config.rpcEndpoints, publicEndpoints: config.rpcPublicEndpoints, intervalMs: config.rpcProbeIntervalMs })
  const system = createSystem({ store, repo: service.repo, mill: app.mill, admission: app.admission, clock, prober, startedAt, verifyCacheMs: config.verifyCacheMs })
  const ctx: TradingContext = {
    config,
    clock,
    store,
    service,
    cycles: createCycleRunner({ repo: service.repo, service, clock }),
    system,
    prober,
    auth: app.auth,
  }

  app.addHook('onReady', async () => prober.start())
  app.addHook('onClose', async () => prober.stop())
  useProblems(app, { notFound: false })

  await app.register(rootRoutes, ctx)
  defineTradingJobs(app, service)
  await app.register(v11Routes, { ...ctx, prefix: '/api/v11' })
  await app.register(readbackRoutes, { ...ctx, prefix: '/api/v11' })
  await app.register(jobRoutes, { prefix: '/api/v11/jobs', framing: 'trading' })
  await app.register(v10Routes, { ...ctx, prefix: '/api/v10' })
  await app.register(v6Routes, { ...ctx, prefix: '/api/v6' })
}
