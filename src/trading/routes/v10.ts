// /api/v10: the previous API kept for old clients, marked deprecated with a successor link on every answer.
import { tradingJob } from '../jobs.js'
import { jobBudgetNote, JUDGE_BY_PATH } from '../../jobs/budget.js'
import { jobViewSchema } from '../../jobs/types.js'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { TradingContext } from '../context.js'
import { TAGS } from '../context.js'
import { datasetView } from '../datasets.js'
import { datasetListAnswer, v10HealthAnswer } from '../schemas.js'
import { maxEdgeV10Body } from '../schemas.js'
import { problemResponses, tradingNotFound } from './common.js'
import { MAX_EDGE_V10_EXAMPLES } from './examples.js'

/** RFC 9745 `Deprecation` (a structured-field date: @epoch seconds) and RFC 8594 `Sunset` (an HTTP-date). */
export const V10_DEPRECATED_AT = Date.UTC(2026, 0, 1)
export const V10_SUNSET_AT = Date.UTC(2027, 5, 30, 23, 59, 59)

/** The version v10 clients were written against. */
export const V10_VERSION = '10.9.0'

export const V10_SUCCESSORS: Record<string, string> = {
  '/api/v10/system/health': '/api/v11/system/health',
  '/api/v10/trading/max-edge-signal': '/api/v11/trading/max-edge-signal',
  '/api/v10/datasets': '/api/v11/datasets',
}

export default async function v10Routes(parent: FastifyInstance, ctx: TradingContext) {
  const app = parent.withTypeProvider<ZodTypeProvider>()
  const { service, system, config } = ctx
  app.setNotFoundHandler(tradingNotFound)
  app.addHook('onSend', async (req, reply) => {
    reply.header('deprecation', `@${Math.floor(V10_DEPRECATED_AT / 1000)}`)
    reply.header('sunset', new Date(V10_SUNSET_AT).toUTCString())
    const successor = V10_SUCCESSORS[req.routeOptions.url ?? ''] ?? '/api/v11/system/inventory'
    reply.header('link', `<${successor}>; rel="successor-version"`)
  })
  const tags = [TAGS.v10]
  const deprecated = true

  app.get('/system/health', {
    schema: { tags, deprecated, summary: 'v10 health (deprecated: use /api/v11/system/health)', response: { 200: v10HealthAnswer, 503: v10HealthAnswer } },
  }, async (_req, reply) => {
    const database = await system.databaseCheck()
    const health: z.infer<typeof v10HealthAnswer> = {
      status: database.ok ? 'ok' : 'down',
      version: V10_VERSION,
      api: 'v10',
      uptime: system.uptimeS(),
      db: database.ok ? 'ok' : 'error',
      datasets: database.ok ? await service.repo.datasetCount() : 0,
      deprecated: true,
      successor: V10_SUCCESSORS['/api/v10/system/health']!,
    }
    return reply.code(database.ok ? 200 : 503).send(health)
  })

  app.post('/trading/max-edge-signal', {
    ...JUDGE_BY_PATH,
    config: { examples: MAX_EDGE_V10_EXAMPLES, refusals: ['not_found'] },
    schema: {
      tags, deprecated,
      summary: 'v10 signal: in-sample grid over sma_cross only (deprecated: use /api/v11/trading/max-edge-signal)',
      description: 'Every (fast, slow) pair with fast < slow is backtested on all bars and the best by `maximize` gives the signal. ' +
        'In-sample only: the figures are optimistic by construction. With `Prefer: respond-async` it runs as a job (202, Location: /api/v11/jobs/{id}).' +
        jobBudgetNote(maxEdgeV10Body, config.jobMaxMs),
      body: maxEdgeV10Body,
      response: { 200: z.record(z.string(), z.unknown()), 202: jobViewSchema, ...problemResponses },
    },
  }, async (req, reply) => tradingJob(parent, service, req, reply, 'trading.max-edge-signal.v10') as Promise<Record<string, unknown>>)

  app.get('/datasets', {
    schema: { tags, deprecated, summary: 'Datasets with their metadata (deprecated: use GET /api/v11/datasets)', response: { 200: datasetListAnswer } },
  }, async () => ({ datasets: (await service.repo.datasets()).map(datasetView) }))
}
