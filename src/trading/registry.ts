// The trading registry: every route of the platform, checked for unique names, routes and tool names. Its routes,
// jobs, MCP tools and `ncm` commands are projections of this one table.
import type { TradingOperation } from './operation.js'
import { systemOperations } from './ops/system.js'
import { datasetOperations } from './ops/datasets.js'
import { researchOperations } from './ops/research.js'
import { runOperations } from './ops/runs.js'
import { runResultOperations } from './ops/run-results.js'
import { ledgerOperations } from './ops/ledger.js'

export function createTradingRegistry(operations: readonly TradingOperation[]): readonly TradingOperation[] {
  const seen = new Set<string>()
  const once = (key: string, what: string) => {
    if (seen.has(key)) throw new Error(`two trading operations ${what}`)
    seen.add(key)
  }
  for (const op of operations) {
    once(`name ${op.name}`, `are named ${op.name}`)
    once(`route ${op.method} ${op.url}`, `answer ${op.method} ${op.url}`)
    if (op.mcp) once(`mcp ${op.mcp.name}`, `are the MCP tool ${op.mcp.name}`)
    if (op.cli) once(`cli ${op.cli.name}`, `are the command ${op.cli.name}`)
  }
  return Object.freeze([...operations])
}

export const tradingRegistry: readonly TradingOperation[] = createTradingRegistry([
  ...systemOperations,
  ...datasetOperations,
  ...researchOperations,
  ...runOperations,
  ...runResultOperations,
  ...ledgerOperations,
])
