// The probes orchestrators call (Kubernetes, Docker, systemd): /livez answers while the process serves and touches no
// dependency; /startupz answers 200 once the start's own work (the start report) is done; /readyz checks what a
// request needs (the store, the shared Redis when configured, the mill, the data directory's disk) and answers 503
// when one fails. Anyone gets the status; the checks only a caller whose credential carries admin:read (anyone on a
// host without ADMIN_TOKEN). /health stays the platform's contract route.
import { constants } from 'node:fs'
import { access, statfs } from 'node:fs/promises'
import { dirname } from 'node:path'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { storeStatus } from '../store/status.js'

/** Free space under which the data directory cannot take a SQLite checkpoint or an import: not ready. */
export const DISK_MIN_FREE_BYTES = 64 * 1024 * 1024
/** Longest a readiness check may take; past it the check fails (a probe must answer within the orchestrator's timeout). */
export const CHECK_DEADLINE_MS = 2000

const checkSchema = z.object({
  name: z.enum(['startup', 'shutdown', 'store', 'redis', 'mill', 'disk', 'memory']),
  status: z.enum(['pass', 'warn', 'fail']).describe('fail makes the probe answer 503; warn is advice'),
  detail: z.string(),
})
type Check = z.infer<typeof checkSchema>

const probeAnswer = (statuses: readonly [string, ...string[]]) => z.object({
  status: z.enum(statuses),
  checks: z.array(checkSchema).optional().describe('only for a credential with admin:read (anyone on a host without ADMIN_TOKEN)'),
})
const liveAnswer = probeAnswer(['alive'])
const startupAnswer = probeAnswer(['started', 'starting'])
const readyAnswer = probeAnswer(['ready', 'not_ready'])

export type StartupState = 'pending' | 'done' | 'failed'

declare module 'fastify' {
  interface FastifyInstance {
    /** The start's own work: the admin collectors mark it finished once the start report has run (or failed). */
    startup: { state(): StartupState; finished(outcome: 'done' | 'failed'): void }
  }
}

/** Settles with the check, or with a failed check once the deadline passes. */
async function withDeadline(name: Check['name'], work: Promise<Check>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Check>((resolve) => {
    timer = setTimeout(() => resolve({ name, status: 'fail', detail: `no answer within ${CHECK_DEADLINE_MS} ms` }), CHECK_DEADLINE_MS)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`

export default fp(
  async function probesPlugin(parent: FastifyInstance) {
    const app = parent.withTypeProvider<ZodTypeProvider>()
    let startup: StartupState = 'pending'
    app.decorate('startup', { state: () => startup, finished: (outcome: 'done' | 'failed') => { startup = outcome } })
    let closing = false
    app.addHook('preClose', async () => {
      closing = true
    })

    // The checks' detail is admin.read for the request's principal (the access plugin identified it; a bad bearer
    // was refused at the door).
    const mayReadChecks = async (req: FastifyRequest): Promise<boolean> => app.policy.allows(req.principal, 'admin.read')

    const startupCheck = (): Check => ({
      name: 'startup',
      status: startup === 'pending' ? 'fail' : 'pass',
      detail: startup === 'pending' ? 'the start report (known-answer tests, readiness) has not finished'
        : startup === 'done' ? 'the start report has run' : 'the start report failed (see the log); serving anyway',
    })

    const storeCheck = async (): Promise<Check> => {
      const status = await storeStatus(app.store)
      return status.ok
        ? { name: 'store', status: 'pass', detail: `${status.backend} answered SELECT 1 in ${status.latency_ms} ms` }
        : { name: 'store', status: 'fail', detail: `${status.backend} did not answer SELECT 1: ${status.error}` }
    }

    // Unreachable Redis degrades the host (each replica limits and queues alone until it is back) but stops no request.
    const redisCheck = async (): Promise<Check> => {
      const probe = await app.redis!.probe()
      return probe.reachable
        ? { name: 'redis', status: 'pass', detail: `${probe.url} answered PING in ${probe.latency_ms} ms` }
        : { name: 'redis', status: 'warn', detail: `${probe.url} is unreachable (${probe.error}): rate limit and job queue run per replica` }
    }

    const millCheck = (): Check => {
      const stats = app.mill.stats()
      const line = `${stats.threads} threads, ${stats.running} running, ${stats.queue_size} queued (max ${stats.max_queue})`
      if (stats.threads < 1) return { name: 'mill', status: 'fail', detail: `no worker thread: ${line}` }
      return app.mill.isSaturated() ? { name: 'mill', status: 'warn', detail: `full, heavy work is refused: ${line}` } : { name: 'mill', status: 'pass', detail: line }
    }

    const diskCheck = async (): Promise<Check> => {
      const { store } = app
      if (store.backend !== 'sqlite' || store.path === ':memory:') {
        return { name: 'disk', status: 'pass', detail: `no database file here (${store.backend === 'sqlite' ? ':memory:' : 'PostgreSQL'})` }
      }
      const dir = dirname(store.path)
      try {
        await access(dir, constants.W_OK)
      } catch (err) {
        return { name: 'disk', status: 'fail', detail: `the data directory is not writable: ${(err as Error).message}` }
      }
      const fs = await statfs(dir)
      const free = fs.bavail * fs.bsize
      return free < DISK_MIN_FREE_BYTES
        ? { name: 'disk', status: 'fail', detail: `${mib(free)} free in the data directory, under ${mib(DISK_MIN_FREE_BYTES)}` }
        : { name: 'disk', status: 'pass', detail: `${mib(free)} free in the data directory` }
    }

    const memoryCheck = (): Check => {
      const rss = process.memoryUsage.rss()
      const budget = app.config.memoryBudgetBytes
      return rss > budget
        ? { name: 'memory', status: 'warn', detail: `RSS ${mib(rss)} is over MEMORY_BUDGET_MIB (${mib(budget)})` }
        : { name: 'memory', status: 'pass', detail: `RSS ${mib(rss)} of MEMORY_BUDGET_MIB ${mib(budget)}` }
    }

    const readinessChecks = async (): Promise<Check[]> => [
      startupCheck(),
      { name: 'shutdown', status: closing ? 'fail' : 'pass', detail: closing ? 'shutting down: draining in-flight requests' : 'serving' },
      ...await Promise.all([
        withDeadline('store', storeCheck()),
        ...(app.redis ? [withDeadline('redis', redisCheck())] : []),
        withDeadline('disk', diskCheck().catch((err: Error): Check => ({ name: 'disk', status: 'fail', detail: err.message }))),
      ]),
      millCheck(),
      memoryCheck(),
    ]

    const schema = (summary: string, response: z.ZodType) => ({ tags: ['probes'], summary, response: { 200: response, 503: response } })

    app.get('/livez', { schema: schema('Liveness: 200 while the process answers; checks nothing else', liveAnswer) }, async () => ({ status: 'alive' as const }))

    app.get('/startupz', { schema: schema('Startup: 200 once the start report has run (503 before)', startupAnswer) }, async (req, reply) => {
      const started = startup !== 'pending'
      const status = started ? 'started' as const : 'starting' as const
      return reply.code(started ? 200 : 503).send((await mayReadChecks(req)) ? { status, checks: [startupCheck()] } : { status })
    })

    app.get('/readyz', {
      schema: schema('Readiness: the store, Redis (when configured), the mill and the disk; 503 when one fails or while starting or shutting down', readyAnswer),
    }, async (req, reply) => {
      const checks = await readinessChecks()
      const ready = checks.every((check) => check.status !== 'fail')
      const status = ready ? 'ready' as const : 'not_ready' as const
      return reply.code(ready ? 200 : 503).send((await mayReadChecks(req)) ? { status, checks } : { status })
    })
  },
  { name: 'ncm-probes', fastify: '5.x', dependencies: ['ncm-store', 'ncm-auth', 'ncm-mill'] },
)
