// What the trading operations share, built once per host for its routes and its MCP tools: one research service, one
// cycle runner, one prober, the platform's system view and the command center's page cache.
import type { Clock } from '../sched/clock.js'
import type { Authenticator } from '../access/auth.js'
import type { Config } from '../config.js'
import type { Mill } from '../mill/pool.js'
import type { Admission } from '../plugins/admission.js'
import type { Store } from '../store/index.js'
import { createCycleRunner } from './cycle.js'
import { createPageCache, dataVersionOf } from './page-cache.js'
import { renderCommandCenter } from './page.js'
import { createReadback, type Readback } from './readback.js'
import { createRunResults, type RunResultsReader } from './run-results.js'
import { createRpcProber, type RpcProber } from './rpc-prober.js'
import { createTradingService, type TradingService } from './service.js'
import { createSystem } from './system.js'

export interface TradingContext {
  config: Config
  clock: Clock
  store: Store
  service: TradingService
  /** What the platform stored, read back (paged lists, one run, one dataset). */
  readback: Readback
  /** A stored run's trades and curve, paged or as CSV. */
  runResults: RunResultsReader
  cycles: ReturnType<typeof createCycleRunner>
  system: ReturnType<typeof createSystem>
  prober: RpcProber
  auth: Authenticator
  /** The command center as a viewer sees it (its own runs; null: every run), rendered once per data version and second (page-cache.ts). */
  commandCenter: (viewer: string | null) => Promise<string>
}

export const TAGS = { v11: 'trading v11', v10: 'trading v10', v6: 'trading v6' } as const

export interface TradingContextDeps {
  config: Config
  clock: Clock
  store: Store
  mill: Mill
  admission: Admission
  auth: Authenticator
}

export function createTradingContext({ config, clock, store, mill, admission, auth }: TradingContextDeps): TradingContext {
  const service = createTradingService({
    store, mill, admission, clock, barsCacheBytes: config.barsCacheBytes, runRetention: config.runRetention, runResultsLeaseMs: config.runResultsLeaseMs,
  })
  const prober = createRpcProber({ endpoints: config.rpcEndpoints, publicEndpoints: config.rpcPublicEndpoints, intervalMs: config.rpcProbeIntervalMs })
  const system = createSystem({
    store, repo: service.repo, mill, admission, clock, prober, startedAt: clock.now(), verifyCacheMs: config.verifyCacheMs,
  })
  return {
    config,
    clock,
    store,
    service,
    readback: createReadback(service, mill),
    runResults: createRunResults(service.repo),
    cycles: createCycleRunner({ repo: service.repo, service, clock }),
    system,
    prober,
    auth,
    commandCenter: createPageCache({
      clock,
      version: () => dataVersionOf(store),
      render: async (viewer: string | null) => renderCommandCenter(await system.panels(viewer)),
    }),
  }
}
