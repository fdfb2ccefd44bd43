// The trading research routes as ncm commands: each described once (route, caption, input schema) so the same flag
// grammar as the caller operations parses their flags (`--params.fast 10`, `--json '{…}'`).
import { z } from 'zod'
import { createRegistry } from '../caller/registry.js'
import { defineOperation, type AnyOperation, type Registry } from '../caller/operation.js'
import { backtestBody, simulateBody } from '../trading/schemas.js'
import { maxEdgeBody } from '../trading/schemas.js'

export interface TradingCommand {
  /** Its description for the flag grammar (never run here: the server answers). */
  op: AnyOperation
  method: 'GET' | 'POST'
  /** Full path on the host. */
  path: string
}

function command(name: string, method: 'GET' | 'POST', path: string, caption: string, input: z.ZodType, example: unknown): TradingCommand {
  const op = defineOperation({
    name, method, path, lobe: 'orchestration', caption, summary: `${caption}. Answered by ${method} ${path} on the server.`,
    input, output: z.unknown(), provenance: ['computed', 'stored'], examples: [example as never],
    handler: () => { throw new Error(`${name} is answered by the server`) },
  })
  return { op, method, path }
}

const GOOG_SMA = { dataset: 'GOOG', strategy: 'sma_cross', params: { fast: 10, slow: 20 }, cash: 10_000, commission: 0.002 }

export const TRADING_COMMANDS: readonly TradingCommand[] = [
  command('backtest', 'POST', '/api/v11/trading/backtest', 'Backtest a strategy on a dataset (backtesting.py semantics)', backtestBody, GOOG_SMA),
  command('simulate', 'POST', '/api/v11/trading/simulate', 'Monte Carlo of a strategy: return, drawdown and Sharpe distributions', simulateBody,
    { ...GOOG_SMA, paths: 200, horizon: 252, method: 'bootstrap', seed: 1 }),
  command('max-edge-signal', 'POST', '/api/v11/trading/max-edge-signal', 'Walk-forward signal search scored out of sample', maxEdgeBody, { dataset: 'GOOG' }),
]

/** A registry of the trading commands alone, for the flag grammar. */
export const tradingCommandRegistry: Registry = createRegistry(TRADING_COMMANDS.map((c) => c.op))
