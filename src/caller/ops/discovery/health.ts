// GET /health: the host's health in the shape of the IETF health-check draft, measured now.
import { z } from 'zod'
import { defineOperation, noInput } from '../../operation.js'
import { isoAt } from '../../../sched/clock.js'
import { scaleOutReport, scaleOutSchema } from '../../../plugins/scale-out.js'
import { storeStatus, storeStatusSchema } from '../../../store/status.js'

const check = z.object({
  componentId: z.string(),
  componentType: z.enum(['component', 'datastore', 'system']),
  observedValue: z.number().nullable(),
  observedUnit: z.string(),
  status: z.enum(['pass', 'warn', 'fail']),
  time: z.string(),
  output: z.string().optional(),
})

/** When this module loaded (the host's start), as every answer states it. */
const startedAt = new Date().toISOString()

export const health = defineOperation({
  name: 'health',
  method: 'GET',
  path: '/health',
  lobe: 'discovery',
  caption: 'Health of the host: database, event loop, mill, shared Redis',
  summary:
    'Status pass/warn/fail with uptime and per-component checks (database round trip, event-loop delay, mill utilisation, ' +
    'Redis round trip and version with REDIS_URL), the store (SQLite or PostgreSQL: version, latency, pool use), the job queue backend and where the rate limit counts (scale_out), ' +
    'shaped after draft-inadarei-api-health-check: checks keyed "component:measurement", each an array of observations.',
  input: noInput,
  output: z.object({
    status: z.enum(['pass', 'warn', 'fail']),
    uptime_s: z.number(),
    started_at: z.string(),
    occupancy_reason: z.string().nullable(),
    checks: z.record(z.string(), z.array(check)),
    scale_out: scaleOutSchema,
    store: storeStatusSchema,
  }),
  provenance: ['measured'],
  examples: [{}],
  handler: async (_input, ctx) => {
    const time = isoAt(ctx.clock.now())
    const store = await storeStatus(ctx.store)
    // A store that answers but has no room to write fails too: writes are refused until space is freed.
    const dbStatus: Status = !store.ok || store.storage.state === 'full' ? 'fail' : store.storage.state === 'low' ? 'warn' : 'pass'
    const delay = ctx.admission.eventLoopDelayMs()
    const delayStatus: Status = delay > ctx.config.maxEventLoopDelayMs ? 'warn' : 'pass'
    const mill = ctx.mill.stats()
    const millStatus: Status = ctx.mill.isSaturated() ? 'warn' : 'pass'
    const scaleOut = await scaleOutReport(ctx.host)
    const redis = scaleOut.redis
    // Redis away: light requests still answer (the limiter counts per replica) but jobs cannot be dispatched.
    const redisStatus: Status = !redis || redis.reachable ? 'pass' : 'warn'
    const statuses: Status[] = [dbStatus, delayStatus, millStatus, redisStatus]
    const status: Status = statuses.includes('fail') ? 'fail' : statuses.includes('warn') ? 'warn' : 'pass'
    return {
      status,
      uptime_s: Math.round(process.uptime() * 1000) / 1000,
      started_at: startedAt,
      occupancy_reason: ctx.admission.reason(),
      checks: {
        'database:responseTime': [{
          componentId: store.backend, componentType: 'datastore' as const, observedValue: store.latency_ms, observedUnit: 'ms',
          status: dbStatus, time,
          output: !store.ok ? `unreachable: ${store.error}` : store.storage.reason ? `${store.backend} ${store.version}; storage ${store.storage.state}: ${store.storage.reason}` : `${store.backend} ${store.version}`,
        }],
        'eventloop:delay': [{
          componentId: 'main-loop', componentType: 'system' as const, observedValue: round(delay), observedUnit: 'ms',
          status: delayStatus, time,
        }],
        'mill:utilization': [{
          componentId: 'mill', componentType: 'component' as const, observedValue: round(mill.utilization * 100),
          observedUnit: 'percent', status: millStatus, time,
        }],
        ...(redis ? {
          'redis:responseTime': [{
            componentId: redis.url, componentType: 'datastore' as const, observedValue: redis.latency_ms, observedUnit: 'ms',
            status: redisStatus, time, output: redis.reachable ? `Redis ${redis.version}` : `unreachable: ${redis.error}`,
          }],
        } : {}),
      },
      scale_out: scaleOut,
      store,
    }
  },
})

type Status = 'pass' | 'warn' | 'fail'
const round = (x: number) => Math.round(x * 1000) / 1000
