// The admin pages at the root: GET /admin (the go-live page) and GET /metrics (Prometheus text).
// The page calls the same collectors the admin JSON routes answer from (app.adminCollectors, app.metrics, app.jobs);
// the access policy decides, for the request's principal, whether it may see them at all (/metrics: at the door).
import { renderJobMetrics } from '../jobs/metrics.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { HUB_VERSION, NCM_VERSION } from '../version.js'
import { isSmokeRequest } from '../access/internal.js'
import { renderAdminPage, renderPanel, type Loaded, type PanelData } from './page.js'

export default async function adminPlugin(app: FastifyInstance) {

  app.get('/admin', {
    schema: {
      tags: ['admin'],
      summary: '/admin',
      description: 'The go-live page: readiness status and score, smoke checks, blockers and advisories, truth summary, live metrics. With ADMIN_TOKEN set it asks for the token.',
    },
  }, async (req, reply) => {
    const access = accessOf(req)
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
  }, async (_req, reply) => {
    const text = app.metrics.prometheus() + renderJobMetrics(await app.jobs.stats())
    return reply.type('text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(text)
  })
}

type Access = 'allowed' | 'anonymous' | 'forbidden'

/** The panel's door: admin.read for the request's principal (a bad bearer was refused 401 by the access plugin). */
function accessOf(req: FastifyRequest): Access {
  if (req.server.policy.allows(req.principal, 'admin.read')) return 'allowed'
  return req.principal.kind === 'anonymous' ? 'anonymous' : 'forbidden'
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
