// Root routes of the platform: /health and the server-rendered /command-center page.
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { TradingContext } from '../context.js'
import { TAGS } from '../context.js'
import { createPageCache, dataVersionOf } from '../page-cache.js'
import { renderCommandCenter } from '../page.js'
import { iso } from '../present.js'
import { PLATFORM_VERSION, rootHealthAnswer } from '../schemas.js'
import { scaleOutReport } from '../../plugins/scale-out.js'

export default async function rootRoutes(parent: FastifyInstance, ctx: TradingContext) {
  const app = parent.withTypeProvider<ZodTypeProvider>()
  const { system } = ctx
  const startedAt = iso(system.startedAt) // formatted once, not per answer
  // One render per data version and second, shared by a burst (page-cache.ts); the panels JSON stays per request.
  const commandCenter = createPageCache({
    clock: ctx.clock,
    version: () => dataVersionOf(ctx.store),
    render: async () => renderCommandCenter(await system.panels()),
  })

  app.get('/health', {
    schema: {
      tags: [TAGS.v11],
      summary: 'Platform health: version 11.0.0, database check, uptime (503 when the database fails); the store (SQLite or PostgreSQL: version, latency, pool use); the queue backend, the rate limit\'s store and the shared Redis (degraded while it cannot answer)',
      response: { 200: rootHealthAnswer, 503: rootHealthAnswer },
    },
  }, async (_req, reply) => {
    const database = await system.databaseCheck()
    const scaleOut = await scaleOutReport(parent)
    const health: z.infer<typeof rootHealthAnswer> = {
      // A full store still answers reads: degraded (writes are refused with occupied until space is freed).
      status: !database.ok ? 'down' : database.full || (scaleOut.redis && !scaleOut.redis.reachable) ? 'degraded' : 'ok',
      version: PLATFORM_VERSION,
      mode: 'paper',
      uptime_s: system.uptimeS(),
      started_at: startedAt,
      checks: { database: { ok: database.ok, detail: database.detail, latency_ms: database.latency_ms } },
      scale_out: scaleOut,
      store: database.store,
    }
    return reply.code(database.ok ? 200 : 503).send(health)
  })

  app.get('/command-center', {
    schema: {
      tags: [TAGS.v6],
      summary: 'Command center (HTML): the panels with the latest backtest\'s equity curve',
      produces: ['text/html'],
      response: { 200: { description: 'server-rendered page', content: { 'text/html': { schema: z.string() } } } },
    },
  }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(await commandCenter()))
}
