// MCP tools: one more projection of the operation registry, plus the trading research tools (run in-process).
import { z } from 'zod'
import type { AnyOperation, OperationContext, Registry } from '../caller/operation.js'
import { admitBeforeInput, admitParsed, parseInput, runHandler } from '../caller/gate.js'
import type { JobSurface } from '../jobs/types.js'
import type { TradingJobOp } from '../trading/jobs.js'
import { inputJsonSchema } from '../caller/projections.js'
import { Refusal } from '../refusal.js'
import { datasetView } from '../trading/datasets.js'
import { backtestBody, simulateBody } from '../trading/schemas.js'
import { maxEdgeBody } from '../trading/schemas.js'
import type { TradingService } from '../trading/service.js'
import { noInput } from '../caller/operation.js'
import { SURFACE_PREFIX } from '../jobs/view.js'
import { flatObjectSchema, type FlatObjectSchema } from './flat-schema.js'
import { toolsetOf, type Toolset } from './toolsets.js'

type JsonSchema = Record<string, unknown>

export interface ToolContext {
  op: OperationContext
  trading: TradingService
}

/** The job a heavy tool runs as (the same executor its HTTP route submits to). */
export interface ToolJob {
  op: string
  surface: JobSurface
}

export interface McpTool {
  name: string
  title: string
  description: string
  /** JSON Schema of the arguments: a plain object with properties (alternatives flattened, see flat-schema.ts). */
  inputSchema: FlatObjectSchema
  /** The group a connection selects it by (toolsets.ts), from its registry's metadata. */
  toolset: Toolset
  /** Runs in the mill: needs scope run:heavy when ADMIN_TOKEN is set, and is refused while the host sheds load. */
  heavy: boolean
  /** 'large' when the tool takes bodies up to LARGE_BODY_LIMIT_BYTES, as its HTTP route does. */
  bodyLimit: 'default' | 'large'
  readOnly: boolean
  /** Every check that can refuse, in the gate's order; answers the parsed input. Refusals are thrown as Refusal. */
  admit(args: unknown, ctx: ToolContext): unknown
  /** Heavy tools run as this job (progress and cancellation come from it); the others run in the request. */
  job?: ToolJob
  run(input: unknown, ctx: ToolContext): Promise<unknown>
  /** Its answer grows with its input (its route is marked largeAnswer, or it is a job): a call takes a large-answer slot. */
  largeAnswer: boolean
  /** Its HTTP route (path from the host's root): a linked answer names it, for the whole answer over HTTP. */
  route: { method: 'GET' | 'POST'; path: string }
  /** A human rendering of the data, when the operation has one (e.g. skills_md's Markdown). */
  renderText?: (data: unknown) => string
}

function jsonSchemaOf(schema: z.ZodType): McpTool['inputSchema'] {
  const converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema
  delete converted.$schema
  return flatObjectSchema(converted)
}

/** A registry operation as a tool: the same refuse-first gate as its route, /run and /cli, and the same job when heavy. */
function operationTool(op: AnyOperation): McpTool {
  return {
    name: op.name,
    title: op.caption,
    description: `${op.caption}. ${op.summary}`,
    inputSchema: flatObjectSchema(inputJsonSchema(op)),
    toolset: toolsetOf({ surface: 'caller', lobe: op.lobe, ...(op.adminOnly ? { adminOnly: true } : {}) }),
    heavy: op.heavy,
    bodyLimit: op.bodyLimit,
    readOnly: op.method === 'GET',
    largeAnswer: op.heavy || op.largeAnswer === true,
    route: { method: op.method, path: `${SURFACE_PREFIX.caller}${op.path}` },
    admit(args, { op: ctx }) {
      try {
        // Nature (chat), admin and scope first; then run:heavy, as /run asks of heavy batches; then input, limits, admission.
        admitBeforeInput(op, args, ctx)
        if (op.heavy) ctx.auth.require(ctx.credential, 'run:heavy', op.name)
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
    run: (input, { op: ctx }) => runHandler(op, input, ctx),
    ...(op.render ? { renderText: (data: unknown) => op.render!.body(data as never) } : {}),
  }
}

interface TradingToolSpec<S extends z.ZodType> {
  name: string
  title: string
  description: string
  input: S
  /** Its route under /api/v11. */
  route: McpTool['route']
  /** The job of its route (POST /api/v11/trading/*); absent for light reads. */
  job?: TradingJobOp
  run(input: z.output<S>, trading: TradingService): Promise<unknown> | unknown
}

function tradingTool<S extends z.ZodType>(spec: TradingToolSpec<S>): McpTool {
  const heavy = spec.job !== undefined
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: jsonSchemaOf(spec.input),
    toolset: toolsetOf({ surface: 'trading' }),
    heavy,
    bodyLimit: 'default',
    readOnly: !heavy,
    largeAnswer: heavy,
    route: spec.route,
    admit(args, { op: ctx }) {
      if (heavy) ctx.auth.require(ctx.credential, 'run:heavy', spec.name)
      const input = parseInput({ name: spec.name, input: spec.input }, args)
      if (heavy) ctx.admission.admitHeavy(spec.name)
      return input
    },
    ...(spec.job ? { job: { op: spec.job, surface: 'trading' as const } } : {}),
    async run(input, { trading }) {
      try {
        return await spec.run(input as z.output<S>, trading)
      } catch (err) {
        throw err instanceof Refusal ? err.forOp(spec.name) : err
      }
    },
  }
}

/** The trading platform's research side (POST /api/v11/trading/* and GET /api/v11/datasets), called in-process. */
export const TRADING_TOOLS: readonly McpTool[] = [
  tradingTool({
    name: 'trading_datasets',
    route: { method: 'GET', path: '/api/v11/datasets' },
    title: 'Datasets of OHLCV bars with their metadata',
    description: 'Datasets of OHLCV bars with their metadata (symbol, timeframe, source, rows, range, checksum, seed), as GET /api/v11/datasets.',
    input: noInput,
    run: async (_input, trading) => ({ datasets: (await trading.repo.datasets()).map(datasetView) }),
  }),
  tradingTool({
    name: 'trading_backtest',
    route: { method: 'POST', path: '/api/v11/trading/backtest' },
    title: 'Backtest a strategy on a dataset',
    description: 'Backtest a strategy on a dataset with backtesting.py 0.6.6 semantics; the run is stored with its inputs\' digest. ' +
      'As POST /api/v11/trading/backtest; runs in the mill.',
    input: backtestBody,
    job: 'trading.backtest',
    run: (input, trading) => trading.backtest(input),
  }),
  tradingTool({
    name: 'trading_simulate',
    route: { method: 'POST', path: '/api/v11/trading/simulate' },
    title: 'Monte Carlo of a strategy',
    description: 'Monte Carlo of a strategy (bootstrap or GBM paths): percentiles of return, drawdown and Sharpe, probability of loss, ' +
      'VaR and CVaR, reproducible by seed. As POST /api/v11/trading/simulate; runs in the mill.',
    input: simulateBody,
    job: 'trading.simulate',
    run: (input, trading) => trading.simulate(input),
  }),
  tradingTool({
    name: 'trading_max_edge_signal',
    route: { method: 'POST', path: '/api/v11/trading/max-edge-signal' },
    title: 'Walk-forward signal search',
    description: 'Walk-forward search over strategies × parameter grids scored out of sample: the best configuration, its out-of-sample ' +
      'statistics, the configurations tried, the deflated Sharpe ratio and the latest bar\'s signal. As POST /api/v11/trading/max-edge-signal; runs in the mill.',
    input: maxEdgeBody,
    job: 'trading.max-edge-signal',
    run: (input, trading) => trading.maxEdgeSignal(input),
  }),
]

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
