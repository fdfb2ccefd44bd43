// What the trading routes share: one service, one cycle runner, one prober, the authenticator.
import type { Clock } from '../clock.js'
import type { Authenticator } from '../access/auth.js'
import type { Config } from '../config.js'
import type { Store } from '../store/index.js'
import type { createCycleRunner } from './cycle.js'
import type { RpcProber } from './rpc-prober.js'
import type { TradingService } from './service.js'
import type { createSystem } from './system.js'

export interface TradingContext {
  config: Config
  clock: Clock
  store: Store
  service: TradingService
  cycles: ReturnType<typeof createCycleRunner>
  system: ReturnType<typeof createSystem>
  prober: RpcProber
  auth: Authenticator
}

export const TAGS = { v11: 'trading v11', v10: 'trading v10', v6: 'trading v6' } as const
