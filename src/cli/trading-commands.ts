// The trading registry's operations marked `cli` as ncm commands: each described for the caller's flag grammar
// (`--params.fast 10`, `--json '{…}'`) from the operation's one input schema; the server answers.
import { z } from 'zod'
import { createRegistry } from '../caller/registry.js'
import { defineOperation, type AnyOperation, type Registry } from '../caller/operation.js'
import { requestOf, type TradingOperation } from '../trading/operation.js'
import { tradingRegistry } from '../trading/registry.js'

export interface TradingCommand {
  /** Its description for the flag grammar (never run here: the server answers). */
  op: AnyOperation
  method: 'GET' | 'POST' | 'DELETE'
  /** Full path on the host, path parameters filled from the input; the other members go in the query or the body. */
  request(input: Record<string, unknown>): { path: string; rest: Record<string, unknown> }
}

function command(trading: TradingOperation): TradingCommand {
  const { name, caption, example } = trading.cli!
  const op = defineOperation({
    name, method: trading.method === 'GET' ? 'GET' : 'POST', path: trading.url, lobe: 'orchestration', caption,
    summary: `${caption}. Answered by ${trading.method} ${trading.url} on the server.`,
    input: trading.input, output: z.unknown(), provenance: ['computed', 'stored'], examples: [example as never],
    handler: () => { throw new Error(`${name} is answered by the server`) },
  })
  return { op, method: trading.method, request: (input) => requestOf(trading, input) }
}

export const TRADING_COMMANDS: readonly TradingCommand[] = tradingRegistry.filter((op) => op.cli).map(command)

/** A registry of the trading commands alone, for the flag grammar. */
export const tradingCommandRegistry: Registry = createRegistry(TRADING_COMMANDS.map((c) => c.op))
