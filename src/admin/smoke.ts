// Boot smoke checks: each contract admin route requested in-process (app.inject), with status code and time.
import type { FastifyInstance } from 'fastify'
import { internalHeaders } from '../access/internal.js'
import { inTurns } from '../sched/turns.js'
import type { SmokeCheck } from './schemas.js'

export const SMOKE_ALGORITHM = 'boot-smoke-inject/1'

/** The admin routes of the contract (SPEC §4), in the order the page and the report list them. */
export const ADMIN_ROUTES = [
  '/admin',
  '/api/v1/admin/truth/summary',
  '/api/v1/admin/command-post/summary',
  '/api/v1/admin/go-live/overview',
] as const

export type { SmokeCheck } from './schemas.js'

/**
 * Requests each route with the internal smoke marker. Any instance of the app can inject: light-my-request goes
 * through the root server's router, so routes of sibling plugins are reached too.
 */
export async function runSmokeChecks(app: FastifyInstance, routes: readonly string[] = ADMIN_ROUTES): Promise<SmokeCheck[]> {
  const checks: SmokeCheck[] = []
  // One turn of the event loop per check: injected requests never wait for I/O, so clients would wait for all of them.
  for await (const path of inTurns(routes)) {
    const started = performance.now()
    try {
      const res = await app.inject({ method: 'GET', url: path, headers: internalHeaders({ smoke: true }) })
      const ms = Math.round((performance.now() - started) * 10) / 10
      const ok = res.statusCode >= 200 && res.statusCode < 300
      checks.push({ path, status_code: res.statusCode, ms, ok, error: ok ? null : describeFailure(res.statusCode, res.body) })
    } catch (err) {
      const ms = Math.round((performance.now() - started) * 10) / 10
      checks.push({ path, status_code: null, ms, ok: false, error: `threw: ${(err as Error).message}` })
    }
  }
  return checks
}

function describeFailure(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { refuse?: { code?: string; reason?: string } }
    if (parsed.refuse?.code) return `HTTP ${status} ${parsed.refuse.code}: ${parsed.refuse.reason}`
  } catch {
    // not JSON: the status says enough
  }
  return `HTTP ${status}`
}
