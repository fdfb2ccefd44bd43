// MCP tools: one more projection of the operation registry, plus the trading research tools (run in-process).
import { z } from 'zod'
import type { AnyOperation, OperationContext, Registry } from '../caller/operation.js'
import { admitBeforeInput, admitParsed, jobInput, parseInput, runHandler, runParsed } from '../caller/gate.js'
import { BodyBlocks } from '../body-parse/formats.js'
import { POLICY } from '../access/policy.js'
import { actionOf, readsBodyInMill } from '../caller/operation.js'
import { inputJsonSchema } from '../caller/projections.js'
import { Refusal } from '../http/refusal.js'
import { SURFACE_PREFIX } from '../jobs/view.js'
import { flatObjectSchema } from './flat-schema.js'
import { tradingRegistry } from '../trading/registry.js'
import { tradingTools } from './trading-tools.js'
import { toolsetOf, type Toolset } from './toolsets.js'

type JsonSchema = Record<string, unknown>

export type { McpTool, ToolContext, ToolJob } from './tool-types.js'
import type { McpTool } from './tool-types.js'

/** A registry operation as a tool: the same refuse-first gate as its route, /run and /cli, and the same job when heavy. */
function operationTool(op: AnyOperation): McpTool {
  return {
    name: op.name,
    title: op.caption,
    description: `${op.caption}. ${op.summary}`,
    inputSchema: flatObjectSchema(inputJsonSchema(op)),
    toolset: toolsetOf({ surface: 'caller', lobe: op.lobe, ...(POLICY[actionOf(op)].need === 'admin' ? { adminOnly: true } : {}) }),
    heavy: op.heavy,
    bodyLimit: op.bodyLimit,
    readOnly: op.method === 'GET',
    largeAnswer: op.heavy || op.largeAnswer === true,
    route: { method: op.method, path: `${SURFACE_PREFIX.caller}${op.path}` },
    readsBytes: readsBodyInMill(op),
    async admit(args, { op: ctx }) {
      try {
        // Nature (chat), then the access policy (as the route asks it), then input, limits, admission.
        admitBeforeInput(op, args, ctx)
        // Arguments too wide for the loop: read in the mill, by the job's stored input for a heavy operation.
        if (args instanceof BodyBlocks) return op.heavy ? await jobInput(op, args, ctx, null) : args
        const input = parseInput(op, args)
        admitParsed(op, input, ctx)
        return input
      } catch (err) {
        throw err instanceof Refusal ? err.forOp(op.name) : err
      }
    },
    ...(op.heavy ? { job: { op: op.name, surface: 'caller' as const } } : {}),
    // Text a mill task or the answer writer wrote (a large /diff's patch) is passed on as it is: toolAnswer reads it
    // back as data when it is small enough to inline, and links it otherwise (parsing megabytes is one long stretch).
    run: (input, { op: ctx }) => (input instanceof BodyBlocks ? runParsed(op, input, ctx) : runHandler(op, input, ctx)),
    ...(op.render ? { renderText: (data: unknown) => op.render!.body(data as never) } : {}),
  }
}

/** The trading registry's tools (src/mcp/trading-tools.ts). */
export const TRADING_TOOLS: readonly McpTool[] = tradingTools(tradingRegistry)

/** The tools of the selected toolsets, in the order of `tools`. */
export const selectTools = (tools: readonly McpTool[], selection: readonly Toolset[]): McpTool[] =>
  tools.filter((tool) => selection.includes(tool.toolset))

/** Every tool: exactly the registry's operations, then the trading tools. */
export function mcpTools(registry: Registry): McpTool[] {
  const tools = [...registry.operations.map(operationTool), ...TRADING_TOOLS]
  const names = new Set<string>()
  for (const tool of tools) {
    if (names.has(tool.name)) throw new Error(`two MCP tools are named ${tool.name}`)
    names.add(tool.name)
  }
  return tools
}
