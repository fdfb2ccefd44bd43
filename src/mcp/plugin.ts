// POST/GET/DELETE /mcp: the SDK's Streamable HTTP transport on Fastify's raw request and response. A client that
// initializes gets a session (in memory, bounded, idle ones closed), so its notifications/cancelled reaches the request it
// cancels; a POST without a session is answered by a one-shot server as plain JSON. Each request is authenticated like the API.
// A session belongs to the principal that initialized it; each principal has a share of the sessions (sessions.ts) and
// of the open streams (a standalone GET stream takes a slot of SSE_STREAMS_PER_CLIENT, like a job's events).
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { Transform } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { baseUrlOf } from '../http/base-url.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import { operationContext, type OperationContext } from '../caller/operation.js'
import type { TradingContext } from '../trading/context.js'
import { Refusal } from '../http/refusal.js'
import { setRawSecurityHeaders } from '../plugins/limits.js'
import type { RequestBinding, ToolIndex } from './server.js'
import { mcpTools, selectTools, type McpTool } from './tools.js'
import { requestedToolsets, TOOLSETS, TOOLSETS_HEADER, type Toolset } from './toolsets.js'
import { createSessionBook, type OwnedSession } from './sessions.js'
import { originMayUseMcp } from './origin.js'
import { cachedToolsList } from './tools-list.js'
import { BodyBlocks } from '../body-parse/formats.js'
import { outcomeValue } from '../body-parse/reader.js'
import { movable } from '../mill/moving.js'
import { DEFAULT_TIMEOUT_MS } from '../mill/pool.js'

export const MCP_PATH = '/mcp'
/** Sessions kept at once; past it the least recently used one of the principal holding the most is closed. */
export const MAX_SESSIONS = 256
/** Messages one JSON-RPC batch may hold (the SDK's own cap is 100). */
export const MAX_BATCH_MESSAGES = 4
/** A session unused this long is closed (its client re-initialises). */
export const SESSION_IDLE_MS = 30 * 60_000

/** The config, clock, registry, caller counters and authenticator come from the host's decorators. */
export interface McpPluginOptions {
  trading: TradingContext
}

interface Session extends OwnedSession {
  transport: StreamableHTTPServerTransport
  server: Server
}

const BINDING = 'ncm.binding'
/** The bytes of a message as they were read (a chunked body has no Content-Length to go by). */
const BODY_BYTES = Symbol('ncm.mcpBodyBytes')
type CountedRequest = FastifyRequest & { [BODY_BYTES]?: () => number }

/** What the endpoint needs of the SDK, imported on first use. */
interface McpRuntime {
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport
  isInitializeRequest: typeof import('@modelcontextprotocol/sdk/types.js').isInitializeRequest
  supportedVersions: readonly string[]
  createMcpServer: typeof import('./server.js').createMcpServer
  /** The index of a selection's tools, built once per selection. */
  toolsFor(selection: readonly Toolset[]): ToolIndex
}

async function loadRuntime(registry: FastifyInstance['registry']): Promise<McpRuntime> {
  const [transport, types, server] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./server.js'),
  ])
  return {
    StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
    isInitializeRequest: types.isInitializeRequest,
    supportedVersions: types.SUPPORTED_PROTOCOL_VERSIONS,
    createMcpServer: server.createMcpServer,
    toolsFor: toolIndexes(mcpTools(registry), server.indexTools),
  }
}

/** One index per selection of toolsets (at most 2^4), each built on first use. */
function toolIndexes(all: readonly McpTool[], index: (tools: readonly McpTool[], others: readonly McpTool[]) => ToolIndex) {
  const built = new Map<string, ToolIndex>()
  return (selection: readonly Toolset[]): ToolIndex => {
    const key = TOOLSETS.filter((name) => selection.includes(name)).join(',')
    let found = built.get(key)
    if (!found) {
      const chosen = selectTools(all, selection)
      built.set(key, (found = index(chosen, all.filter((tool) => !chosen.includes(tool)))))
    }
    return found
  }
}

export default async function mcpPlugin(app: FastifyInstance, opts: McpPluginOptions) {
  const { config, clock, registry, callerCounters: counters } = app
  const { trading } = opts
  const sessions = createSessionBook<Session>(MAX_SESSIONS, config.mcpSessionsPerClient)

  // The SDK (and Hono under its transport, ~0.3 s to import) and the tool index load with the first /mcp request.
  let sdkLoad: Promise<McpRuntime> | null = null
  const runtime = () => (sdkLoad ??= loadRuntime(registry).catch((err: unknown) => {
    sdkLoad = null
    throw err
  }))

  const newServer = ({ createMcpServer, toolsFor }: McpRuntime, toolsets: readonly Toolset[]) => createMcpServer({
    config,
    tools: toolsFor(toolsets),
    trading,
    counters,
    jobs: app.jobs,
    memory: app.memory,
    bindingOf: (extra) => {
      const binding = extra.authInfo?.extra?.[BINDING] as RequestBinding | undefined
      if (!binding) throw new Error('an MCP message arrived without its HTTP request')
      return binding
    },
  })

  const contextOf = (req: FastifyRequest): OperationContext =>
    // An answer held by a message's handler (a pin read) is held until the /mcp response that carries it closes.
    operationContext(app, { credential: req.credential, principal: req.principal, requestId: req.id, baseUrl: baseUrlOf(req, config), log: req.log, holdAnswer: (bytes) => req.holdAnswer(bytes) })

  async function closeSession(id: string) {
    const session = sessions.remove(id)
    if (!session) return
    await session.server.close().catch(() => undefined)
  }

  const sweep = setInterval(() => {
    const idleSince = clock.now() - SESSION_IDLE_MS
    for (const [id, session] of [...sessions.entries()]) if (session.lastSeen < idleSince) void closeSession(id)
  }, 60_000)
  sweep.unref()
  app.addHook('onClose', async () => {
    clearInterval(sweep)
    await Promise.all([...sessions.entries()].map(([id]) => closeSession(id)))
  })

  /**
   * A message over 64 KiB, read in the mill (task mcp.message): its value, with a tools/call's arguments taken out as
   * their bytes when the loop may not hold them; refused as the body parser refuses a body.
   */
  async function messageFromBody(body: BodyBlocks, owner: string): Promise<{ message: unknown; toolArguments: Uint8Array | null }> {
    if (body.format.kind !== 'json') throw new Error(`${MCP_PATH} reads JSON bodies only`)
    const { views, transfer } = movable(body.blocks)
    const read = await app.mill.run('mcp.message', { blocks: views, format: body.format }, { timeoutMs: DEFAULT_TIMEOUT_MS, op: 'request body', owner, transfer })
    return { message: outcomeValue(read.outcome), toolArguments: read.toolArguments ?? null }
  }

  async function handle(req: FastifyRequest, reply: FastifyReply) {
    // A browser page may not drive the endpoint unless it is the host's own or listed (DNS rebinding, cross-site requests).
    const origin = req.headers.origin
    if (origin !== undefined && !originMayUseMcp(origin, req, config)) {
      throw new Refusal('forbidden', `origin ${origin.slice(0, 200)} may not use ${MCP_PATH}: only the host's own origin ` +
        '(PUBLIC_URL, or a loopback address on its port) and those CORS_ORIGINS lists may')
    }
    const toolsets = requestedToolsets(req.query, req.headers[TOOLSETS_HEADER])
    const { message, toolArguments } = req.body instanceof BodyBlocks ? await messageFromBody(req.body, req.principal.owner) : { message: req.body, toolArguments: null }
    // Authenticated per request by the host's access plugin, like every API call: a bad bearer was refused before any
    // message was read; each message then asks the policy as the tool or resource it names.
    const binding: RequestBinding = { context: contextOf(req), bodyBytes: (req as CountedRequest)[BODY_BYTES]?.() ?? 0, toolArguments }
    const authInfo: AuthInfo = {
      token: '',
      clientId: req.principal.subject,
      scopes: [...req.principal.scopes],
      extra: { [BINDING]: binding },
    }

    // The SDK answers a JSON-RPC batch as one message written at once: a batch of many large answers is one long
    // stretch of the loop (50 resource reads of the host's OpenAPI document: 29 MB, ~400 ms). A few are answered.
    if (Array.isArray(message) && message.length > MAX_BATCH_MESSAGES) {
      return rpcError(reply, 400, -32600, `a JSON-RPC batch holds at most ${MAX_BATCH_MESSAGES} messages here; this one has ` +
        `${message.length} (send them one at a time or in smaller batches)`, { refuse: new Refusal('over_limit',
        `a JSON-RPC batch holds at most ${MAX_BATCH_MESSAGES} messages`, { hints: { limit: 'MAX_BATCH_MESSAGES', value: MAX_BATCH_MESSAGES } }).toBody() })
    }
    const sdk = await runtime()
    const { isInitializeRequest, StreamableHTTPServerTransport } = sdk
    const sessionId = req.headers['mcp-session-id']
    const owner = req.principal.owner
    let session: Session | undefined
    let releaseStream: (() => void) | null = null
    if (typeof sessionId === 'string') {
      session = sessions.get(sessionId)
      // Another principal's session id is treated as a closed one: its stream and cancellations are not theirs.
      if (!session || session.owner !== owner) return rpcError(reply, 404, -32001, 'unknown or closed MCP session: initialize again')
      sessions.touch(sessionId, clock.now())
      // The standalone stream (GET) stays open as long as the client likes: it takes one of the principal's stream slots.
      if (req.method === 'GET') releaseStream = await app.jobStreams.take(owner)
    } else if (req.method === 'POST' && isInitializeRequest(message)) {
      const victim = sessions.victimFor(owner)
      if (victim !== null) await closeSession(victim)
      // The toolsets are the session's from its initialize on: its later requests carry the same URL anyway.
      const server = newServer(sdk, toolsets)
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => { sessions.add(id, { transport, server, owner, lastSeen: clock.now() }) },
        onsessionclosed: (id) => { sessions.remove(id) },
      })
      await server.connect(transport)
      session = { transport, server, owner, lastSeen: clock.now() }
    } else if (req.method === 'POST') {
      const listing = cachedToolsList(message, req.headers, sdk.supportedVersions, sdk.toolsFor(toolsets).listingBytes)
      if (listing) return reply.type('application/json').send(listing)
      // No session: a one-shot server answers this message alone, as plain JSON (a curl line, a simple agent).
      const server = newServer(sdk, toolsets)
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await server.connect(transport)
      reply.raw.once('close', () => { void server.close() })
      session = { transport, server, owner, lastSeen: clock.now() }
    } else {
      return rpcError(reply, 400, -32000, `no mcp-session-id: ${req.method} ${MCP_PATH} needs a session (initialize first)`)
    }

    setRawSecurityHeaders(req, reply)
    if (releaseStream) reply.raw.once('close', releaseStream)
    reply.hijack()
    const raw = req.raw as IncomingMessage & { auth?: AuthInfo }
    raw.auth = authInfo
    await session.transport.handleRequest(raw, reply.raw, message)
  }

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: MCP_PATH,
    // Tools take up to the large limit (sat, digest…); a tool with the default limit refuses a larger message itself.
    bodyLimit: config.largeBodyLimitBytes,
    config: { bodyInMill: true },
    schema: { hide: true },
    // Counted as read: a tool's body limit holds for a chunked message too (it has no Content-Length).
    preParsing: (req, _reply, payload, done) => {
      let bytes = 0
      const counting = new Transform({
        transform(chunk: Buffer, _encoding, next) {
          bytes += chunk.length
          next(null, chunk)
        },
      })
      ;(req as CountedRequest)[BODY_BYTES] = () => bytes
      payload.once('error', (err) => counting.destroy(err))
      done(null, payload.pipe(counting))
    },
    handler: handle,
  })
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string, data?: Record<string, unknown>) {
  return reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null })
}
