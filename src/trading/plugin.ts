// The trading platform as one encapsulated plugin: /health, /api/v11, /api/v10, /api/v6 and /command-center, every
// route a projection of the trading registry.
import type { FastifyInstance } from 'fastify'
import type { TradingContext } from './context.js'
import { useProblems } from '../plugins/problem.js'
import { seedIfFirstStart, type SeedLevel } from './seed.js'
import { defineTradingJobs } from './jobs.js'
import jobRoutes from '../jobs/routes.js'
import tradingRoutes from './routes.js'
import { sweepInterruptedResults } from './run-results-sweep.js'
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
 * Runs whose results writer died (a crash between a run's row and its last batch) get their results written again:
 * at start and then every lease (run-results-sweep.ts). One pass at a time.
 */
function sweepRunResults(app: FastifyInstance, { service, clock }: TradingContext): void {
  let closing = false
  let running: Promise<void> | null = null
  let timer: NodeJS.Timeout | undefined
  const sweep = () => {
    running ??= (async () => {
      try {
        const { rewritten, givenUp } = await sweepInterruptedResults(service, clock, app.log)
        if (rewritten.length + givenUp.length > 0) app.log.warn({ rewritten, given_up: givenUp }, 'interrupted run results swept')
      } catch (err) {
        if (!closing) app.log.warn({ err }, 'sweeping interrupted run results failed; the next sweep tries again')
      } finally {
        running = null
      }
    })()
    return running
  }
  app.addHook('onReady', async () => {
    // Not awaited: computing runs again must not hold the host's start.
    void sweep()
    timer = setInterval(() => void sweep(), service.runResultsLeaseMs)
    timer.unref()
  })
  app.addHook('onClose', async () => {
    // A pass under way is not waited for: its claim lapses and the next start takes it over.
    closing = true
    clearInterval(timer)
  })
}
