// The host-wide OpenAPI document (generated from the routes' zod schemas), Swagger UI at /docs and a reference at /reference.
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance } from 'fastify'
import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference'
import { jsonSchemaTransform } from 'fastify-type-provider-zod'
import { HUB_VERSION, NCM_VERSION } from '../version.js'

export const HOST_TITLE = 'NCM Hub'

const REFERENCE_FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23234'/%3E%3C/svg%3E"

/** The routes @scalar/fastify-api-reference registers under /reference (the spec comes from /docs/json). */
const REFERENCE_ROUTES = ['/reference', '/reference/', '/reference/js/scalar.js'] as const
/** What the reference's answers say about themselves; the host adds its own security headers. */
const FORWARDED_HEADERS = ['content-type', 'location', 'cache-control', 'etag', 'last-modified'] as const

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
            'client at `http://<host>/mcp`). One message without a session answers as JSON — the transport requires both types ' +
            "in Accept: `curl -s localhost:8000/mcp -H 'content-type: application/json' -H 'accept: application/json, " +
            "text/event-stream' -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}'`.",
        },
        servers: [{ url: '/', description: 'this host' }],
        tags: [
          { name: 'discovery', description: 'what the caller API is and can do' },
          { name: 'logic', description: 'SAT solving and CNF analysis' },
          { name: 'capacity', description: 'model memory, fit, tokens, packing, CUDA occupancy' },
          { name: 'text', description: 'digests and diffs' },
          { name: 'access', description: 'grants, pins, contract upgrades' },
          { name: 'orchestration', description: 'refuse-first dispatch' },
          { name: 'runtime', description: 'measured runtime races' },
          { name: 'admin', description: 'smoke checks, go-live readiness, truth and command-post summaries' },
        ],
      },
      transform: jsonSchemaTransform,
    })
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } })
    // Scalar's reference is a 4.3 MB string compiled into its module (~30 MiB of RSS once imported): its routes here
    // hand requests to a Fastify instance of its own, built with the plugin on the first /reference request.
    let reference: Promise<FastifyInstance> | null = null
    const referenceApp = () => (reference ??= (async () => {
      const { default: scalarReference } = await import('@scalar/fastify-api-reference')
      const inner = Fastify({ logger: false })
      await inner.register(scalarReference, REFERENCE_OPTIONS)
      await inner.ready()
      return inner
    })())
    app.addHook('onClose', async () => {
      if (reference) await (await reference).close()
    })
    for (const url of REFERENCE_ROUTES) {
      app.get(url, { schema: { hide: true }, logLevel: 'warn' }, async (req, reply) => {
        const res = await (await referenceApp()).inject({ method: 'GET', url: req.url })
        reply.code(res.statusCode)
        for (const name of FORWARDED_HEADERS) {
          const value = res.headers[name]
          if (value !== undefined) reply.header(name, value)
        }
        // a redirect has no body: sent empty, it gets no content type (as the plugin's own answer)
        return res.rawPayload.length ? reply.send(res.rawPayload) : reply.send()
      })
    }
  },
  { name: 'ncm-docs', fastify: '5.x' },
)
