// The host-wide OpenAPI document (generated from the routes' zod schemas), Swagger UI at /docs and a reference at /reference.
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { hostDocumentBuilder } from './host-documents.js'

export const HOST_TITLE = 'NCM Hub'
/** The name of the bearer security scheme in the OpenAPI documents (the explorer's Authorize dialog shows it). */
export const BEARER_SCHEME = 'bearer'

/** The host's icon: every page that does not name one (/admin, the explorer) gets it at /favicon.ico, never a 404. */
const FAVICON_SVG = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#234'/></svg>"
const REFERENCE_FAVICON = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`

/** The routes @scalar/fastify-api-reference registers under /reference (the spec comes from /docs/json). */
const REFERENCE_ROUTES = ['/reference', '/reference/', '/reference/js/scalar.js'] as const
/** What the reference's answers say about themselves; the host adds its own security headers. */
const FORWARDED_HEADERS = ['content-type', 'location', 'cache-control', 'etag', 'last-modified'] as const
/** Of the explorer's answers, what stays with the connection rather than the answer. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length'])
// Answers show their schema first: an "Example Value" the explorer generates from a schema is made up (regex-built
// strings, placeholder numbers), and request bodies pre-fill from the registries' tested examples anyway.
const EXPLORER_OPTIONS = {
  routePrefix: '/docs',
  uiConfig: { docExpansion: 'list' as const, deepLinking: true, defaultModelRendering: 'model' as const },
}

/** A Fastify instance of its own built on first use, holding a plugin the host only forwards requests to. */
function lazyInner(build: (inner: FastifyInstance) => Promise<void>): { get(): Promise<FastifyInstance>; close(): Promise<void> } {
  let inner: Promise<FastifyInstance> | null = null
  return {
    get: () => (inner ??= (async () => {
      const app = Fastify({ logger: false })
      await build(app)
      await app.ready()
      return app
    })().catch((err: unknown) => {
      inner = null
      throw err
    })),
    close: async () => {
      if (inner) await (await inner.catch(() => null))?.close()
    },
  }
}

interface Forwarding {
  /** Which of the inner answer's headers the host's answer keeps. */
  keep: (name: string) => boolean
  /** Pass the request's headers on (conditional and range requests of static files). */
  withHeaders: boolean
  /** The inner 404 becomes the host's own not-found answer. */
  hostNotFound: boolean
}

/** Answers with what `inner` answers to the same GET. */
async function forward(inner: FastifyInstance, req: FastifyRequest, reply: FastifyReply, how: Forwarding) {
  const res = await inner.inject({ method: 'GET', url: req.url, ...(how.withHeaders ? { headers: req.headers } : {}) })
  if (how.hostNotFound && res.statusCode === 404) return reply.callNotFound()
  reply.code(res.statusCode)
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && how.keep(name)) reply.header(name, value)
  // a redirect has no body: sent empty, it gets no content type (as the plugin's own answer)
  return res.rawPayload.length ? reply.send(res.rawPayload) : reply.send()
}

const REFERENCE_OPTIONS: FastifyApiReferenceOptions = {
  routePrefix: '/reference',
  // Offline under our CSP: no font CDN (system fonts instead), no telemetry, none of the cloud features (the agent
  // chat "Ask AI", "Generate MCP", the hosted client), which all call Scalar's servers.
  configuration: {
    url: '/docs/json',
    title: `${HOST_TITLE} reference`,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: 'never',
    // An inline icon: without one the browser asks for /favicon.ico, and its 404 is a console error.
    favicon: REFERENCE_FAVICON,
    customCss: ':root { --scalar-font: ui-sans-serif, system-ui, sans-serif; --scalar-font-code: ui-monospace, monospace; }',
  },
  logLevel: 'warn',
}

export default fp(
  async function docsPlugin(app: FastifyInstance) {
    const documents = hostDocumentBuilder(app)
    app.decorate('hostDocuments', documents.documents)
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: HOST_TITLE,
          version: HUB_VERSION,
          description:
            `The whole host: the honest-compute caller API (/api/v1, contract ${NCM_VERSION}), ` +
            'the paper-trading platform (/health, /api/v11, /api/v10, /api/v6) and the admin/go-live surface.\n\n' +
            'Agents: the caller operations and the trading research are also MCP tools at `/mcp` (Streamable HTTP; point an MCP ' +
            'client at `http://<host>/mcp`; toolsets `caller` and `trading` by default, others with `/mcp?toolsets=discovery,admin` or ' +
            '`all`, see docs/mcp.md). One message without a session answers as JSON — the transport requires both types ' +
            "in Accept: `curl -s localhost:8000/mcp -H 'content-type: application/json' -H 'accept: application/json, " +
            "text/event-stream' -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}'`.",
        },
        servers: [{ url: '/', description: 'this host' }],
        // Optional everywhere (`{}`): what needs a credential refuses without one (401/403, documented per operation).
        security: [{}, { [BEARER_SCHEME]: [] }],
        components: {
          securitySchemes: {
            [BEARER_SCHEME]: {
              type: 'http',
              scheme: 'bearer',
              description: 'ADMIN_TOKEN, or a token minted by POST /api/v1/grant with the scopes it carries (pin:write, run:heavy, ' +
                'admin:read, trading:write). With no ADMIN_TOKEN set the host is open and needs none.',
            },
          },
        },
        tags: [
          { name: 'discovery', description: 'what the caller API is and can do' },
          { name: 'logic', description: 'SAT solving and CNF analysis' },
          { name: 'capacity', description: 'model memory, fit, tokens, packing, CUDA occupancy' },
          { name: 'text', description: 'digests and diffs' },
          { name: 'access', description: 'grants, pins, contract upgrades' },
          { name: 'orchestration', description: 'refuse-first dispatch' },
          { name: 'runtime', description: 'measured runtime races' },
          { name: 'admin', description: 'smoke checks, go-live readiness, truth and command-post summaries' },
          { name: 'probes', description: 'liveness, startup and readiness probes for orchestrators (/livez, /startupz, /readyz)' },
        ],
      },
      transform: documents.transform,
    })
    // added right after @fastify/swagger's own onRoute hook: it sees the routes the document will hold
    app.addHook('onRoute', documents.collect)
    // Swagger UI (@fastify/swagger-ui with @fastify/static: ~0.3 s of start-up to register its routes) is built in an
    // instance of its own on the first /docs request; the document routes answer here, as the plugin's do.
    const explorer = lazyInner(async (inner) => {
      const { default: swaggerUi } = await import('@fastify/swagger-ui')
      // the UI reads the document from the host's @fastify/swagger
      await inner.register(fp(async (i) => { i.decorate('swagger', app.swagger.bind(app)) }, { name: '@fastify/swagger' }))
      await inner.register(swaggerUi, EXPLORER_OPTIONS)
    })
    await app.register(async (docs) => {
      // a file the UI does not have is the host's 404, as @fastify/static's callNotFound made it
      const how: Forwarding = { keep: (name) => !HOP_BY_HOP.has(name), withHeaders: true, hostNotFound: true }
      const explore = async (req: FastifyRequest, reply: FastifyReply) => forward(await explorer.get(), req, reply, how)
      // in the plugin's order, so the route table reads as before
      for (const url of ['/', '/static/index.html', '/static/swagger-initializer.js']) docs.get(url, { schema: { hide: true } }, explore)
      // The document never changes once built: its texts are encoded once and sent as those bytes. Serialised (0.5 MB) or
      // encoded (1.1 MB of YAML) per answer, 30 parallel GETs from one client held the loop 170-310 ms and 120-450 ms.
      docs.get('/json', { schema: { hide: true } }, async (_req, reply) =>
        reply.type('application/json; charset=utf-8').send(await app.hostDocuments.json()))
      docs.get('/yaml', { schema: { hide: true } }, async (_req, reply) =>
        reply.type('application/x-yaml').send(await app.hostDocuments.yaml()))
      docs.get('/static/*', { schema: { hide: true } }, explore)
    }, { prefix: EXPLORER_OPTIONS.routePrefix })

    app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG))

    // Scalar's reference is a 4.3 MB string compiled into its module (~30 MiB of RSS once imported): its routes here
    // hand requests to a Fastify instance of its own, built with the plugin on the first /reference request.
    const reference = lazyInner(async (inner) => {
      const { default: scalarReference } = await import('@scalar/fastify-api-reference')
      await inner.register(scalarReference, REFERENCE_OPTIONS)
    })
    app.addHook('onClose', async () => {
      await explorer.close()
      await reference.close()
    })
    const forwarded = new Set<string>(FORWARDED_HEADERS)
    const how: Forwarding = { keep: (name) => forwarded.has(name), withHeaders: false, hostNotFound: false }
    for (const url of REFERENCE_ROUTES) {
      app.get(url, { schema: { hide: true }, logLevel: 'warn' }, async (req, reply) => forward(await reference.get(), req, reply, how))
    }
  },
  { name: 'ncm-docs', fastify: '5.x', dependencies: ['ncm-mill'] },
)
