// The admin pages at the root: GET /admin (the go-live page) and GET /metrics (Prometheus text).
// The page calls the same collectors the admin JSON routes answer from (app.adminCollectors, app.metrics, app.jobs);
// the request's own credential decides whether it may see them at all.
import { renderJobMetrics } from '../jobs/metrics.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Authenticator } from '../access/auth.js'
import type { Clock } from '../clock.js'
import { Refusal } from '../refusal.js'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { isInternal, isSmokeRequest } from './internal.js'
import { renderAdminPage, renderPanel, type Loaded, type PanelData } from './page.js'

export default async function adminPlugin(app: FastifyInstance) {
  const auth = app.auth

  app.get('/admin', {
    schema: {
      tags: ['admin'],
      summary: '/admin',
      description: 'The go-live page: readiness status and score, smoke checks, blockers and advisories, truth summary, live metrics. With ADMIN_TOKEN set it asks for the token.',
    },
  }, async (req, reply) => {
    const access = await accessOf(req, auth, app.clock)
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
    const access = await accessOf(req, auth, app.clock)
    if (access !== 'allowed') {
      return reply.code(access === 'forbidden' ? 403 : 401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send(`${access}\n`)
    }
    const text = app.metrics.prometheus() + renderJobMetrics(await app.jobs.stats())
    return reply.type('text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(text)
  })
}

type Access = 'allowed' | 'anonymous' | 'unauthorized' | 'forbidden'

async function accessOf(req: FastifyRequest, auth: Authenticator, clock: Clock): Promise<Access> {
  if (auth.open || isInternal(req)) return 'allowed'
  try {
    const credential = await auth.identify(req.headers.authorization, clock.now())
    if (!credential) return 'anonymous'
    auth.require(credential, 'admin:read')
    return 'allowed'
  } catch (err) {
    if (err instanceof Refusal) return err.code === 'forbidden' ? 'forbidden' : 'unauthorized'
    throw err
  }
}

async function loadPanel(app: FastifyInstance, smoke: boolean): Promise<PanelData> {
  const { truth, readiness } = app.adminCollectors
  const [report, truthSummary, metrics, jobs] = await Promise.all([
    // A smoke check of /admin shows the report without running the smoke checks again.
    settle(app, 'readiness', () => readiness.report({ smoke })),
    settle(app, 'truth', () => truth.latest()),
    settle(app, 'metrics', async () => app.metrics.snapshot()),
    settle(app, 'jobs', () => app.jobs.stats()),
  ])
  return { report, truth: truthSummary, metrics, jobs }
}

/** A collector's answer, or why there is none (the page shows each panel it can; the failure is logged). */
async function settle<T>(app: FastifyInstance, panel: string, collect: () => Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, data: await collect() }
  } catch (err) {
    app.log.error({ err, panel }, 'an admin panel could not be collected')
    return { ok: false, error: `internal: ${(err as Error).message}` }
  }
}
