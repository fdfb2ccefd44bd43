// The admin pages at the root: GET /admin (the go-live page) and GET /metrics (Prometheus text).
// The page reads the admin JSON routes in-process (app.inject with the internal marker), so it shows exactly what a
// client of those routes would see; the request's own credential decides whether it may see it at all.
import { renderJobMetrics } from '../jobs/metrics.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import type { Authenticator } from '../access/auth.js'
import type { Clock } from '../clock.js'
import { Refusal } from '../refusal.js'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { internalHeaders, isInternal, isSmokeRequest } from './internal.js'
import { renderAdminPage, renderPanel, type Loaded, type PanelData } from './page.js'

export interface AdminPluginOptions {
  config: Config
  clock: Clock
}

export default async function adminPlugin(app: FastifyInstance, opts: AdminPluginOptions) {
  const auth = app.auth

  app.get('/admin', {
    schema: {
      tags: ['admin'],
      summary: '/admin',
      description: 'The go-live page: readiness status and score, smoke checks, blockers and advisories, truth summary, live metrics. With ADMIN_TOKEN set it asks for the token.',
    },
  }, async (req, reply) => {
    const access = accessOf(req, auth, opts.clock)
    const partial = (req.query as Record<string, unknown>)?.partial === '1'
    reply.header('cache-control', 'no-store')
    if (access !== 'allowed') {
      // A rejected bearer is a 401 (the page's script asks again); no bearer gets the page that asks for one.
      if (partial || access !== 'anonymous') return reply.code(access === 'forbidden' ? 403 : 401).type('text/html; charset=utf-8').send(access)
      return reply.type('text/html; charset=utf-8').send(renderAdminPage({ panel: null, hub: HUB_VERSION, ncm: NCM_VERSION }))
    }
    const panel = renderPanel(await loadPanel(app, isSmokeRequest(req)))
    if (partial) return reply.type('text/html; charset=utf-8').send(panel)
    return reply.type('text/html; charset=utf-8').send(renderAdminPage({ panel, hub: HUB_VERSION, ncm: NCM_VERSION }))
  })

  app.get('/metrics', {
    schema: {
      tags: ['admin'],
      summary: '/metrics',
      description: 'The command-post figures in Prometheus text format (0.0.4). With ADMIN_TOKEN set: Authorization: Bearer with the token or an admin:read grant.',
    },
  }, async (req, reply) => {
    const access = accessOf(req, auth, opts.clock)
    if (access !== 'allowed') {
      return reply.code(access === 'forbidden' ? 403 : 401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send(`${access}\n`)
    }
    const text = app.metrics.prometheus() + renderJobMetrics(await app.jobs.stats())
    return reply.type('text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(text)
  })
}

type Access = 'allowed' | 'anonymous' | 'unauthorized' | 'forbidden'

function accessOf(req: FastifyRequest, auth: Authenticator, clock: Clock): Access {
  if (auth.open || isInternal(req)) return 'allowed'
  try {
    const credential = auth.identify(req.headers.authorization, clock.now())
    if (!credential) return 'anonymous'
    auth.require(credential, 'admin:read')
    return 'allowed'
  } catch (err) {
    if (err instanceof Refusal) return err.code === 'forbidden' ? 'forbidden' : 'unauthorized'
    throw err
  }
}

async function loadPanel(app: FastifyInstance, smoke: boolean): Promise<PanelData> {
  const [report, truth, metrics, jobs] = await Promise.all([
    // A smoke check of /admin reads the smoke variant of the report: no smoke checks inside smoke checks.
    read<PanelData['report']>(app, '/api/v1/admin/go-live/overview', smoke),
    read<PanelData['truth']>(app, '/api/v1/admin/truth/summary', smoke),
    read<PanelData['metrics']>(app, '/api/v1/admin/command-post/summary', smoke),
    app.jobs.stats().then((data) => ({ ok: true as const, data }), (err: Error) => ({ ok: false as const, error: err.message })),
  ])
  return { report, truth, metrics, jobs }
}

async function read<T extends Loaded<unknown>>(app: FastifyInstance, url: string, smoke: boolean): Promise<T> {
  try {
    const res = await app.inject({ method: 'GET', url, headers: { accept: 'application/json', ...internalHeaders({ smoke }) } })
    const body = JSON.parse(res.body) as { ok?: boolean; data?: unknown; refuse?: { code: string; reason: string } }
    if (res.statusCode === 200 && body.ok) return { ok: true, data: body.data } as T
    return { ok: false, error: body.refuse ? `${body.refuse.code}: ${body.refuse.reason}` : `HTTP ${res.statusCode}` } as T
  } catch (err) {
    return { ok: false, error: (err as Error).message } as T
  }
}

