// The host's one route table: every route as it is registered, tagged with its surface; /map, the caller's and the
// trading platform's inventories and the truth summary all read it.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Refusal } from '../http/refusal.js'

export type SurfaceName = 'caller' | 'trading' | 'admin' | 'docs'

export interface RouteEntry {
  method: string
  url: string
  surface: SurfaceName
  /** The route's OpenAPI summary ('' when it has none). */
  summary: string
  deprecated: boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[]
  }
}

/** Which of the host's surfaces a path belongs to. */
export function surfaceOf(url: string): SurfaceName {
  if (url === '/admin' || url.startsWith('/admin/') || url.startsWith('/api/v1/admin')) return 'admin'
  if (url === '/metrics') return 'admin'
  // /mcp is the caller operations over the Model Context Protocol: another transport of the same surface.
  if (url === '/api/v1' || url.startsWith('/api/v1/') || url === '/mcp') return 'caller'
  if (url.startsWith('/docs') || url.startsWith('/reference')) return 'docs'
  return 'trading'
}

/** A route pattern as a regular expression over request paths: `:param` one segment, `*` the rest. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${source}$`)
}

const patterns = new Map<string, RegExp>()

/** The methods some route answers at `path` (HEAD with GET, as Fastify exposes it); empty when no route matches. */
export function allowedMethods(table: readonly RouteEntry[], path: string): string[] {
  const allowed = new Set<string>()
  for (const route of table) {
    let pattern = patterns.get(route.url)
    if (!pattern) patterns.set(route.url, (pattern = patternOf(route.url)))
    if (pattern.test(path)) {
      allowed.add(route.method)
      if (route.method === 'GET') allowed.add('HEAD')
    }
  }
  return [...allowed].sort()
}

/**
 * For a request no route answers: when the path is known under other methods, the 405 refusal (RFC 9110 §15.5.6)
 * with its `Allow` header set on the reply; else null (a plain 404).
 */
export function wrongMethod(req: FastifyRequest, reply: FastifyReply): Refusal | null {
  // OPTIONS is CORS's preflight: without a granted origin it stays a plain 404 (src/plugins/cors.ts).
  if (req.method === 'OPTIONS') return null
  const path = req.url.split('?')[0]!
  const allow = allowedMethods(req.server.routeTable, path)
  if (allow.length === 0 || allow.includes(req.method)) return null
  reply.header('allow', allow.join(', '))
  return new Refusal('method_not_allowed', `${req.method} is not a method of ${path.slice(0, 256)}; it answers ${allow.join(', ')}`, { hints: { allow } })
}

export default fp(
  async function routeTablePlugin(app: FastifyInstance) {
    const table: RouteEntry[] = []
    app.decorate('routeTable', table)
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      const schema = route.schema as { summary?: string; deprecated?: boolean } | undefined
      for (const method of methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue
        table.push({ method, url: route.url, surface: surfaceOf(route.url), summary: schema?.summary ?? '', deprecated: schema?.deprecated === true })
      }
    })
  },
  { name: 'ncm-route-table', fastify: '5.x' },
)
