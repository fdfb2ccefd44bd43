// The trading platform as one encapsulated plugin: /health, /api/v11, /api/v10, /api/v6 and /command-center, every
// route a projection of the trading registry.
import type { FastifyInstance } from 'fastify'
import type { TradingContext } from './context.js'
import { useProblems } from '../plugins/problem.js'
import { seedIfFirstStart, type SeedLevel } from './seed.js'
import { defineTradingJobs } from './jobs.js'
import jobRoutes from '../jobs/routes.js'
import tradingRoutes from './routes.js'
import { tradingRegistry } from './registry.js'

export interface TradingPluginOptions {
  /** Synthetic datasets written on a database's first start: `full` (default), `small` (tests), or `none`. */
  seed?: SeedLevel
  /** What the operations share; the host builds it once for these routes and its MCP tools. */
  context: TradingContext
}

export default async function tradingPlugin(app: FastifyInstance, opts: TradingPluginOptions) {
  const { context } = opts
  const seeded = await seedIfFirstStart(context.store.sql, opts.seed ?? 'full', context.clock.now())
  if (seeded.length) app.log.info({ datasets: seeded }, 'seeded synthetic datasets')

  app.addHook('onReady', async () => context.prober.start())
  app.addHook('onClose', async () => context.prober.stop())
  sweepRunResults(app, context)
  useProblems(app, { notFound: false })

  defineTradingJobs(app, context, tradingRegistry)
  await app.register(tradingRoutes, { context, operations: tradingRegistry })
  await app.register(jobRoutes, { prefix: '/api/v11/jobs', framing: 'trading' })
}

/**
 * Runs whose results writer died (a crash between a run's row and its last batch) have their partial rows cleared at
 * start and then every lease, so the next repeat of the run writes them again (readers never see them meanwhile).
 */
function sweepRunResults(app: FastifyInstance, { service }: TradingContext): void {
  let closing = false
  let timer: NodeJS.Timeout | undefined
  const sweep = async () => {
    try {
      const swept = await service.sweepRunResults()
      if (swept > 0) app.log.warn({ runs: swept }, 'cleared the partial results of runs whose writing was interrupted')
    } catch (err) {
      if (!closing) app.log.warn({ err }, 'sweeping interrupted run results failed; the next sweep tries again')
    }
  }
  app.addHook('onReady', async () => {
    await sweep()
    timer = setInterval(() => void sweep(), service.runResultsLeaseMs)
    timer.unref()
  })
  app.addHook('onClose', async () => {
    closing = true
    clearInterval(timer)
  })
}
