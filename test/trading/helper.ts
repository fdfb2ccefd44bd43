// Builds the host for trading tests: the whole app with a small trading seed and admission pinned open by default.
// TRADING_TEST_BACKEND=postgres runs the same tests with the store on a fresh PostgreSQL database (dropped at close).
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { createTestDatabase } from '../../src/store/test-postgres.js'
import { testConfig, manualClock } from '../helper.js'
import type { Clock } from '../../src/sched/clock.js'
import type { Store } from '../../src/store/index.js'
import type { SeedLevel } from '../../src/trading/seed.js'

export interface TradingAppOptions {
  env?: Record<string, string>
  clock?: Clock
  store?: Store
  seed?: SeedLevel
  /**
   * `live-bound` (default) pins admission open: on a shared 2-core machine a busy neighbour's CPU use shows up as
   * event-loop delay and would make heavy routes flaky; `measured` keeps the real measurement.
   */
  admission?: 'live-bound' | 'measured'
}

export async function buildTradingApp(options: TradingAppOptions = {}): Promise<FastifyInstance> {
  const database = process.env.TRADING_TEST_BACKEND === 'postgres' && !options.store ? await createTestDatabase() : null
  const config = testConfig({ ...options.env, ...(database ? { DATABASE_URL: database.url, DATABASE_POOL_MAX: '4' } : {}) })
  const clock = options.clock ?? manualClock()
  const seed = options.seed ?? 'small'
  const app = await buildApp({ config, clock, logger: false, tradingSeed: seed, ...(options.store ? { store: options.store } : {}) })
  if (database) app.addHook('onClose', async () => database.drop())
  await app.ready()
  if (options.admission === 'measured') await settled(app)
  else app.admission.override('live-bound')
  return app
}

/**
 * Startup (schema compilation, seeding) blocks the event loop for a moment, and admission measures that delay over
 * its sampling window; heavy routes are refused until the next sample. Waits (bounded) for the host to be live-bound.
 */
export async function settled(app: FastifyInstance): Promise<void> {
  for (let i = 0; i < 100 && app.admission.state() !== 'live-bound'; i++) await new Promise((r) => setTimeout(r, 50))
}
