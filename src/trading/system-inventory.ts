// What the platform holds and can do (inventory: datasets, strategies, routes, counts, limits); the database's own
// figures are the store's (src/store/stats.ts).
import { z } from 'zod'
import type { RouteEntry } from '../plugins/route-table.js'
import { STRATEGIES, STRATEGY_NAMES } from '../engines/trading/index.js'
import { datasetView } from './datasets.js'
import type { TradingRepository } from './repository.js'
import { PLATFORM_VERSION } from './schemas.js'
import { MAX_CONFIG_BARS, MAX_CONFIGS, MAX_V10_PAIRS, SIMULATE_MAX_BAR_STEPS } from './research/limits.js'

/** `routes`: the platform's rows of the host's route table. */
export async function inventoryOf(repo: TradingRepository, routes: ReadonlyArray<Pick<RouteEntry, 'method' | 'url' | 'summary' | 'deprecated'>>) {
  const counts = await repo.tableCounts()
  const runs = await repo.runCounts()
  return {
    version: PLATFORM_VERSION,
    mode: 'paper' as const,
    datasets: (await repo.datasets()).map(datasetView),
    strategies: STRATEGY_NAMES.map((name) => {
      const spec = STRATEGIES[name]
      return {
        name,
        describe: spec.describe,
        params: z.toJSONSchema(spec.params, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
        defaults: spec.defaults,
        grid: spec.grid,
      }
    }),
    routes: routes.map(({ method, url, summary, deprecated }) => ({ method, url, summary, deprecated })),
    counts: {
      datasets: counts.datasets,
      bars: counts.bars,
      runs,
      signals: counts.signals,
      cycles: counts.cycles,
      orders: counts.orders,
      fills: counts.fills,
      positions: counts.positions,
      accounts: counts.accounts,
    },
    limits: {
      max_configs: MAX_CONFIGS,
      max_config_bars: MAX_CONFIG_BARS,
      max_v10_pairs: MAX_V10_PAIRS,
      simulate_max_bar_steps: SIMULATE_MAX_BAR_STEPS,
    },
  }
}
