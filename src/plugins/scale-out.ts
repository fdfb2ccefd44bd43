// What a replica shares with the others, for /health, /api/v1/health and the readiness report: the job queue's
// backend, where the rate limit counts, and the shared Redis measured now (reachability, latency, version).
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'

export const scaleOutSchema = z.object({
  queue_backend: z.enum(['local', 'bullmq']).describe('local: jobs run in this process; bullmq: dispatched through Redis to any replica'),
  rate_limit: z.object({
    store: z.enum(['off', 'memory', 'redis']),
    scope: z.enum(['none', 'process', 'replicas']).describe('whose requests one quota covers'),
    key_prefix: z.string().nullable(),
    degraded: z.object({ since: z.string(), reason: z.string() }).nullable().describe('set while Redis cannot answer: each replica counts alone'),
  }),
  redis: z.object({
    url: z.string().describe('without user or password'),
    reachable: z.boolean(),
    latency_ms: z.number().nullable(),
    version: z.string().nullable(),
    error: z.string().nullable(),
  }).nullable().describe('null without REDIS_URL'),
})
export type ScaleOut = z.infer<typeof scaleOutSchema>

export async function scaleOutReport(app: FastifyInstance): Promise<ScaleOut> {
  return {
    queue_backend: app.jobs.backend,
    rate_limit: app.limiterReport(),
    redis: app.redis ? await app.redis.probe() : null,
  }
}
