// The trading registry's operations marked `mcp` as tools: the same input (path, query and body members in one
// object), the same scope, the same job when heavy, the same handler, called in-process.
import { z } from 'zod'
import { parseInput } from '../caller/gate.js'
import { Refusal } from '../http/refusal.js'
import { accessOf, Answer, type TradingOperation } from '../trading/operation.js'
import type { McpTool, ToolContext } from './tool-types.js'
import { flatObjectSchema } from './flat-schema.js'
import { toolsetOf } from './toolsets.js'

type JsonSchema = Record<string, unknown>

function jsonSchemaOf(schema: z.ZodType): McpTool['inputSchema'] {
  const converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema
  delete converted.$schema
  return flatObjectSchema(converted)
}

const callOf = ({ op, trading }: ToolContext) => ({
  ...trading, host: op.host, credential: op.credential, principal: op.principal, requestId: op.requestId, baseUrl: op.baseUrl, log: op.log,
})

export function tradingTool(op: TradingOperation): McpTool {
  const name = op.mcp!.name
  const heavy = op.heavy !== undefined
  return {
    name,
    title: op.mcp!.title,
    description: `${op.summary}. As ${op.method} ${op.url}${heavy ? '; runs in the mill' : ''}.`,
    inputSchema: jsonSchemaOf(op.input),
    toolset: toolsetOf({ surface: 'trading' }),
    heavy,
    bodyLimit: op.bodyLimit === 'large' ? 'large' : 'default',
    readOnly: op.method === 'GET',
    // Arguments too wide for the loop reach the tool as the value its route's body would be.
    readsBytes: false,
    largeAnswer: heavy || op.largeAnswer === true,
    route: { method: op.method, path: op.url },
    async admit(args, ctx) {
      const { op: caller } = ctx
      try {
        // The tool is its route's door: the same action of the access policy, then the same checks before a job.
        caller.policy.authorizeDoor(caller.principal, accessOf(op), name)
        const input = parseInput({ name, input: op.input }, args) as Record<string, unknown>
        if (op.heavy) {
          await op.heavy.check(input, callOf(ctx))
          caller.admission.admitHeavy(name, caller.principal)
        }
        return input
      } catch (err) {
        throw err instanceof Refusal ? err.forOp(name) : err
      }
    },
    ...(heavy ? { job: { op: op.name, surface: 'trading' as const } } : {}),
    async run(input, ctx) {
      try {
        const data = await op.handler(input, callOf(ctx))
        return data instanceof Answer ? data.body : data
      } catch (err) {
        throw err instanceof Refusal ? err.forOp(name) : err
      }
    },
  }
}

/** The tools of the operations the registry marks for MCP. */
export const tradingTools = (operations: readonly TradingOperation[]): McpTool[] =>
  operations.filter((op) => op.mcp).map(tradingTool)
