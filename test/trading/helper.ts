// Builds the host for trading tests: the lead's buildApp, plus the trading plugin (small seed) when the host lacks it.
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { testConfig, manualClock } from '../helper.js'
import type { Clock } from '../../src/caller/operation.js'
import type { Store } from '../../src/store/index.js'
import tradingPlugin from '../../src/trading/plugin.js'
import type { SeedLevel } from '../../src/trading/seed.js'

export interface TradingAppOptions {
  env?: Record<string, string>
  clock?: Clock
  store?: Store
  seed?: SeedLevel
}

export async function buildTradingApp(options: TradingAppOptions = {}): Promise<FastifyInstance> {
  const config = testConfig(options.env)
  const clock = options.clock ?? manualClock()
  const app = await buildApp({ config, clock, logger: false, ...(options.store ? { store: options.store } : {}) })
  if (!app.hasRoute({ method: 'GET', url: '/api/v11/system/mode' })) {
    await app.register(tradingPlugin, { config, clock, seed: options.seed ?? 'small' })
  }
  await app.ready()
  return app
}
