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
  // Jobs, on both surfaces
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
  // Trading platform
  'GET /health': 'host.read',
  'GET /command-center': 'host.read',
  'GET /api/v11/system/inventory': 'host.read',
  'GET /api/v11/system/health': 'host.read',
  'GET /api/v11/system/mode': 'host.read',
  'GET /api/v11/system/verify': 'host.read',
  'GET /api/v11/db/stats': 'host.read',
  'POST /api/v11/datasets': 'dataset.write',
  'GET /api/v11/datasets': 'dataset.read',
  'GET /api/v11/datasets/:ref': 'dataset.read',
  'DELETE /api/v11/datasets/:ref': 'dataset.write',
  'POST /api/v11/trading/backtest': 'compute.heavy',
  'POST /api/v11/trading/simulate': 'compute.heavy',
  'POST /api/v11/trading/max-edge-signal': 'compute.heavy',
  'POST /api/v11/trading/full-cycle': 'ledger.write',
  'GET /api/v11/runs': 'run.read',
  'GET /api/v11/runs/:id': 'run.read',
  'DELETE /api/v11/runs/:id': 'run.delete',
  'GET /api/v11/ledger/accounts': 'ledger.read',
  'GET /api/v11/ledger/positions': 'ledger.read',
  'GET /api/v11/ledger/orders': 'ledger.read',
  'GET /api/v11/ledger/fills': 'ledger.read',
  'GET /api/v11/ledger/cycles': 'ledger.read',
  'GET /api/v10/system/health': 'host.read',
  'POST /api/v10/trading/max-edge-signal': 'compute.heavy',
  'GET /api/v10/datasets': 'dataset.read',
  'GET /api/v6/rpc/snapshot': 'host.read',
  'GET /api/v6/rpc/best': 'host.read',
  'GET /api/v6/command-center/panels': 'host.read',
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
