// What an MCP tool is: its listing, its gate, and how it runs (as a job, or in the request).
import type { OperationContext } from '../caller/operation.js'
import type { JobSurface } from '../jobs/types.js'
import type { TradingContext } from '../trading/context.js'
import type { FlatObjectSchema } from './flat-schema.js'
import type { Toolset } from './toolsets.js'

export interface ToolContext {
  op: OperationContext
  trading: TradingContext
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
  /** Its arguments too wide for the loop are given as their bytes (BodyBlocks), read in the mill as its route reads a large body. */
  readsBytes: boolean
  /** Every check that can refuse, in the gate's order; answers the parsed input (or a promise of it). Refusals are thrown as Refusal. */
  admit(args: unknown, ctx: ToolContext): unknown
  /** Heavy tools run as this job (progress and cancellation come from it); the others run in the request. */
  job?: ToolJob
  run(input: unknown, ctx: ToolContext): Promise<unknown>
  /** Its answer grows with its input (its route is marked largeAnswer, or it is a job): a call reserves memory first, as its route. */
  largeAnswer: boolean
  /** Its HTTP route (path from the host's root): a linked answer names it, for the whole answer over HTTP. */
  route: { method: 'GET' | 'POST' | 'DELETE'; path: string }
  /** A human rendering of the data, when the operation has one (e.g. skills_md's Markdown). */
  renderText?: (data: unknown) => string
}

