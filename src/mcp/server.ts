// One MCP server (the SDK's Server) over the tools and resources: handlers only, the SDK speaks the protocol.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js'
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema,
  McpError, ReadResourceRequestSchema, type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import type { Config } from '../config.js'
import type { CallerCounters } from '../caller/counters.js'
import type { OperationContext } from '../caller/operation.js'
import { toRefusal } from '../plugins/error-refusal.js'
import { Refusal } from '../http/refusal.js'
import type { TradingContext } from '../trading/context.js'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources.js'
import type { MemoryAdmission } from '../plugins/memory-admission.js'
import type { McpTool } from './tools.js'
import { runAsJob } from './job-runner.js'
import { inputBytes, valueOfBody } from '../caller/gate.js'
import type { JobQueue } from '../jobs/types.js'
import { PLAIN, renderData } from '../render/render.js'
import { SURFACE_PREFIX } from '../jobs/view.js'
import { toolAnswer } from './tool-answer.js'
import { TOOLSETS_PARAM } from './toolsets.js'
import { toolsListBytes } from './tools-list.js'

const MCP_TOOLSETS_HINT = `/mcp?${TOOLSETS_PARAM}=`

/** What the HTTP request that carried a message gives its handler (credential, logger, request id, body size). */
export interface RequestBinding {
  context: OperationContext
  bodyBytes: number
  /** A tools/call's arguments the mill took out of its message (too wide for the loop), as their JSON's bytes; taken once. */
  toolArguments: Uint8Array | null
}

export interface McpServerDeps {
  config: Config
  tools: ToolIndex
  trading: TradingContext
  /** Heavy tools run as jobs here, like their routes. */
  jobs: JobQueue
  counters: CallerCounters
  /** The host's memory admission: a tool whose answer grows with its input holds a reservation while it runs (a pin read holds its own). */
  memory: Pick<MemoryAdmission, 'reserveAnswer'>
  /** The binding of the HTTP request a JSON-RPC message came in (the plugin puts it in the transport's authInfo). */
  bindingOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): RequestBinding
}

/**
 * A call's arguments: as sent, or, when the mill took them out of a large message (too wide for the loop), as their
 * bytes for a tool that reads them in the mill and as the value its route's body would be for any other.
 */
async function argumentsOf(tool: McpTool, sent: Record<string, unknown> | undefined, binding: RequestBinding): Promise<unknown> {
  const wide = binding.toolArguments
  if (!wide) return sent ?? {}
  binding.toolArguments = null
  const body = inputBytes(wide, binding.context)
  return tool.readsBytes ? body : valueOfBody(body, tool.route.path, binding.context)
}

export const SERVER_INSTRUCTIONS =
  'NCM Hub: honest compute. Every number is computed, measured or stored, never invented; what the hub cannot do it refuses ' +
  'with a code and a reason (tool errors carry structuredContent.refuse). Tools are the caller operations of /api/v1 ' +
  '(chat always refuses: the hub generates no text) and the trading research tools (trading_*, paper data only). ' +
  'Heavy tools need scope run:heavy when the host has an ADMIN_TOKEN. Resources: skills.md, the lexicon, the OpenAPI documents, ' +
  'datasets and pins.'

/**
 * The tools of a selection by name and their tools/list answer: built once per host and selection, shared by every
 * server (one per session or message). `others` are the host's tools outside the selection (named in a refusal).
 */
export function indexTools(tools: readonly McpTool[], others: readonly McpTool[] = []) {
  const listing = tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false },
  }))
  return {
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    outside: new Map(others.map((tool) => [tool.name, tool.toolset])),
    /** What the instructions tell a client about its toolsets. */
    toolsetNote: toolsetNote(tools, others),
    listing,
    /** The session-less tools/list answer around its id (tools-list.ts). */
    listingBytes: toolsListBytes(listing),
  }
}
export type ToolIndex = ReturnType<typeof indexTools>

function toolsetNote(tools: readonly McpTool[], others: readonly McpTool[]): string {
  const names = (list: readonly McpTool[]) => [...new Set(list.map((tool) => tool.toolset))].join(', ')
  const selected = `This connection's toolsets: ${names(tools) || 'none'}.`
  return others.length ? `${selected} Others (${names(others)}): connect to ${MCP_TOOLSETS_HINT}<names> or ${MCP_TOOLSETS_HINT}all.` : selected
}

/**
 * One JSON-schema validator for every server. Left to itself, each Server builds an Ajv instance of its own (~2 ms of
 * the loop: its vocabularies and keywords), and a message without a session gets a server of its own: 30 tools/list
 * sent at once held the loop 60-130 ms, half of it Ajv. The SDK uses it only to check elicitation answers (this host
 * never elicits); Ajv keeps no state but the schemas it compiled, which are the same for every server.
 */
let validator: AjvJsonSchemaValidator | null = null

export function createMcpServer(deps: McpServerDeps): Server {
  const { config, tools: { byName, listing, outside }, trading, counters, jobs } = deps

  const server = new Server(
    { name: 'ncm-hub', title: 'NCM Hub', version: HUB_VERSION },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: `${SERVER_INSTRUCTIONS} ${deps.tools.toolsetNote} Contract ${NCM_VERSION}.`,
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()),
    },
  )

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name)
    if (!tool) {
      const toolset = outside.get(request.params.name)
      throw new McpError(ErrorCode.InvalidParams, toolset
        ? `${request.params.name} is in toolset ${toolset}, which this connection did not select: connect to ${MCP_TOOLSETS_HINT}${toolset}`
        : `no tool named ${request.params.name.slice(0, 100)}; tools/list names them`)
    }
    const binding = deps.bindingOf(extra)
    const { context, bodyBytes } = binding
    counters.requests++
    let release: (() => void) | null = null
    try {
      // As its route, such a call reserves memory first (a pin read reserves for the pin's size: 50 reads of a 15 MB
      // pin at once held 2.5 GB of RSS).
      if (tool.largeAnswer) release = deps.memory.reserveAnswer(context.principal.owner)
      // The same body limits as the routes: a tool whose route takes the default limit refuses a larger message.
      if (tool.bodyLimit === 'default' && bodyBytes > config.bodyLimitBytes) {
        throw new Refusal('payload_too_large', `the message is ${bodyBytes} bytes; ${tool.name} takes at most ${config.bodyLimitBytes} (BODY_LIMIT_BYTES)`)
      }
      const toolContext = { op: context, trading }
      const input = await tool.admit(await argumentsOf(tool, request.params.arguments, binding), toolContext)
      let data: unknown
      let meta: Record<string, unknown> | undefined
      let resultUrl: string | null = null
      if (tool.job) {
        const ran = await runAsJob(jobs, tool.job, input, context.principal.owner, extra)
        data = ran.result
        meta = { 'ncm/job': ran.id }
        resultUrl = `${context.baseUrl}${SURFACE_PREFIX[tool.job.surface]}/jobs/${ran.id}/result`
      } else {
        data = await tool.run(input, toolContext)
      }
      counters.completed++
      // The text is the CLI's human rendering (a table, a record, a backtest's key figures); the data is in
      // structuredContent. A large answer is linked instead (tool-answer.ts).
      const render = tool.renderText ?? ((value: unknown) => renderData(value, PLAIN))
      const link = { resultUrl, route: `${tool.route.method} ${context.baseUrl}${tool.route.path}` }
      const reading = { mill: context.mill, owner: context.principal.owner, tripwire: config.loopTripwire === 'throw', tool: tool.name }
      return await toolAnswer(data, link, render, reading, meta)
    } catch (err) {
      const refusal = toRefusal(err, context.requestId).forOp(tool.name)
      counters.refused(refusal.code)
      if (refusal.code === 'internal') context.log.error({ err, tool: tool.name }, 'internal error in an MCP tool')
      else context.log.info({ refusal: refusal.code, reason: refusal.message, tool: tool.name }, 'refused')
      const body = refusal.toBody()
      return {
        isError: true,
        content: [{ type: 'text', text: `refused ${body.code} (${body.http_status}): ${body.reason}` }],
        structuredContent: { refuse: body },
      }
    } finally {
      release?.()
    }
  })

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
    resources: await listResources({ ctx: deps.bindingOf(extra).context, trading: trading.service }),
  }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { context } = deps.bindingOf(extra)
    try {
      // A pin's read reserves memory for its size until the /mcp response carrying it closes (hashedPin).
      return { contents: [await readResource(request.params.uri, { ctx: context, trading: trading.service })] }
    } catch (err) {
      const refusal = toRefusal(err, context.requestId)
      counters.refused(refusal.code)
      // -32002 is the spec's "resource not found"; the refusal rides along in `data`.
      const code = refusal.code === 'not_found' ? -32002 : refusal.code === 'internal' ? ErrorCode.InternalError : ErrorCode.InvalidParams
      throw new McpError(code, refusal.message, { refuse: refusal.toBody() })
    }
  })
  return server
}
