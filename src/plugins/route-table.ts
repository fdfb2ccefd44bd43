// The host's one route table: every route as it is registered, tagged with its surface; /map, the caller's and the
// trading platform's inventories and the truth summary all read it.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

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
