// Which action each HTTP route is (the policy in policy.ts decides what the action needs). A route names its action
// in `config.access`, a caller operation through its registry entry, or it is listed here; a route that is none of
// these stops the host at start (src/plugins/access.ts), so no route reaches data without asking the policy.
import type { Action } from './policy.js'

/** Routes by `METHOD url` exactly as registered; a trailing `*` covers the rest of the path (static documents). */
export const ROUTE_ACTIONS: Readonly<Record<string, Action>> = {
  // Documents and explorers
  'GET /docs': 'host.read',
  'GET /docs/*': 'host.read',
  'GET /reference': 'host.read',
  'GET /reference/*': 'host.read',
  'GET /favicon.ico': 'host.read',
  // Probes: anyone may ask whether the host is up; the checks' detail is admin.read (src/plugins/probes.ts)
  'GET /livez': 'host.read',
  'GET /readyz': 'host.read',
  'GET /startupz': 'host.read',
  // Jobs, on both surfaces (their routes are registered beside the registries)
  'GET /api/v1/jobs': 'job.list',
  'GET /api/v1/jobs/:id': 'job.read',
  'GET /api/v1/jobs/:id/result': 'job.read',
  'GET /api/v1/jobs/:id/events': 'job.read',
  'DELETE /api/v1/jobs/:id': 'job.cancel',
  'GET /api/v11/jobs': 'job.list',
  'GET /api/v11/jobs/:id': 'job.read',
  'GET /api/v11/jobs/:id/result': 'job.read',
  'GET /api/v11/jobs/:id/events': 'job.read',
  'DELETE /api/v11/jobs/:id': 'job.cancel',
  // Admin
  'GET /api/v1/admin/truth/summary': 'admin.read',
  'GET /api/v1/admin/command-post/summary': 'admin.read',
  'GET /api/v1/admin/go-live/overview': 'admin.read',
  'GET /api/v1/admin/grants': 'admin.read',
  'GET /api/v1/admin/pins': 'pin.list',
  'GET /api/v1/admin/pins/:digest': 'admin.read',
  'GET /admin': 'admin.page',
  'GET /metrics': 'admin.read',
  // MCP: the endpoint; each message asks again as its tool or resource
  'POST /mcp': 'mcp.connect',
  'GET /mcp': 'mcp.connect',
  'DELETE /mcp': 'mcp.connect',
  // The trading platform's routes name their action in its registry (src/trading/operation.ts accessOf).
}

/** The action of a route listed here, or undefined. */
export function listedAction(method: string, route: string): Action | undefined {
  // A prefixed plugin's '/' route is registered both with and without its trailing slash: one door.
  const url = route.length > 1 && route.endsWith('/') ? route.slice(0, -1) : route
  const exact = ROUTE_ACTIONS[`${method} ${url}`]
  if (exact) return exact
  for (const [door, action] of Object.entries(ROUTE_ACTIONS)) {
    if (!door.endsWith('/*')) continue
    const [m, prefix] = door.slice(0, -1).split(' ') as [string, string]
    if (m === method && url.startsWith(prefix)) return action
  }
  return undefined
}
