// The admin JSON routes under /api/v1/admin (registered inside the caller plugin, so they are enveloped like the rest).
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Config } from '../config.js'
import { createAuthenticator } from '../access/auth.js'
import type { Registry } from '../caller/operation.js'
import { registry as defaultRegistry } from '../caller/registry.js'
import { createReadinessCollector } from './collect.js'
import type { PythonProbe } from './dependencies/python-env.js'
import { isInternal, isSmokeRequest } from './internal.js'
import { commandPostSchema, readinessReportSchema, truthSummarySchema } from './schemas.js'
import { createTruthRunner } from './truth.js'
import { ADMISSION_SAMPLE_MS } from '../plugins/admission.js'
import { okEnvelope, refusalEnvelope } from '../caller/envelope.js'

export interface AdminApiOptions {
  config?: Config
  registry?: Registry
  /** Replaces the host's python3 in the dependency analysis (tests). */
  pythonProbe?: (modules: readonly string[]) => Promise<PythonProbe>
  /** The tree the readiness report analyses; defaults to the repo root. */
  rootDir?: string
  /** Builds the throwaway host the known-answer tests run in; without it they run against this host. */
  selfTestHost?: () => Promise<FastifyInstance>
  /**
   * Build that host while this one gets ready rather than at the first self-test: compiling its routes blocks the
   * event loop for a second or more, which a listening host must not do (the server sets it; tests build lazily).
   */
  prepareSelfTestHost?: boolean
}

export const START_REPORT_DELAY_MS = 2000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const responses = <T extends z.ZodType>(data: T) => ({ 200: okEnvelope(data), '4xx': refusalEnvelope, '5xx': refusalEnvelope })

const rerunQuery = z.object({
  rerun: z.enum(['0', '1', 'true', 'false']).optional().describe('1 runs every known-answer test again before answering'),
}).strict()

export default async function adminApi(app: FastifyInstance, opts: AdminApiOptions) {
  const config = opts.config ?? app.config
  const registry = opts.registry ?? defaultRegistry
  const now = () => (app.hasDecorator('clock') ? app.clock.now() : Date.now())
  const auth = createAuthenticator(config, app.store.db)
  // The self-test host: built once (before listening when prepareSelfTestHost), closed with this host.
  let sandbox: Promise<FastifyInstance> | null = null
  const selfTestHost = opts.selfTestHost
    ? async () => {
      const build = opts.selfTestHost!
      const fresh = sandbox === null
      sandbox ??= build().catch((err: unknown) => {
        sandbox = null
        throw err
      })
      const host = await sandbox
      // Built just now, lazily: the build blocked the event loop, and the occupancy sampler reads its next window as
      // overload. Let it take that sample, then wait (bounded) for it to settle, so the heavy known answers are not
      // refused as `occupied` because of our own build.
      if (fresh && !opts.prepareSelfTestHost) {
        await sleep(ADMISSION_SAMPLE_MS + 100)
        for (let waited = 0; app.admission.state() !== 'live-bound' && waited < 3000; waited += 100) await sleep(100)
      }
      return host
    }
    : null
  if (selfTestHost && opts.prepareSelfTestHost) app.addHook('onReady', async () => void (await selfTestHost()))
  app.addHook('onClose', async () => {
    if (sandbox) await (await sandbox.catch(() => null))?.close()
  })
  const truth = createTruthRunner(app, {
    registry,
    adminToken: config.adminToken,
    now,
    envelopesWithoutFlags: () => (app.hasDecorator('callerCounters') ? app.callerCounters.envelopesWithoutFlags : 0),
    ...(selfTestHost ? { sandbox: selfTestHost } : {}),
  })
  const collector = createReadinessCollector(app, {
    config,
    truth,
    now,
    ...(opts.rootDir ? { rootDir: opts.rootDir } : {}),
    ...(opts.pythonProbe ? { pythonProbe: opts.pythonProbe } : {}),
  })

  // At start: the known-answer tests, then the boot smoke checks and the report, summarised in the log.
  const bootReport = async () => {
    await truth.run('start')
    const report = await collector.report({ smoke: false })
    const line = { status: report.summary.status, boot: report.summary.boot_status, score: report.summary.readiness_score, plan: report.plan.readiness }
    const blockers = report.blockers.required_blockers
    if (blockers.length > 0) app.log.warn({ ...line, blockers: blockers.map((b) => `${b.kind}: ${b.detail}`) }, 'go-live readiness: blocked')
    else app.log.info(line, `go-live readiness: ${report.summary.status}`)
  }

  // With ADMIN_TOKEN set: the admin token or a grant with admin:read; in-process checks carry the internal marker.
  app.addHook('onRequest', async (req) => {
    if (isInternal(req)) return
    auth.require(auth.identify(req.headers.authorization, now()), 'admin:read')
  })

  // "Run at start": shortly after the server listens, once the event-loop sampler has measured the settled loop (the
  // first sample after a busy start reads as overloaded, and heavy operations would be refused with `occupied`).
  // An inject-only app runs the known-answer tests on the first request instead.
  let startRun: NodeJS.Timeout | null = null
  let closing = false
  app.addHook('onListen', async () => {
    startRun = setTimeout(() => {
      void bootReport().catch((err: unknown) => {
        if (!closing) app.log.error({ err }, 'the go-live readiness report failed at start')
      })
    }, START_REPORT_DELAY_MS)
    startRun.unref()
  })
  app.addHook('preClose', async () => {
    closing = true
    if (startRun) clearTimeout(startRun)
  })

  app.get('/truth/summary', {
    schema: {
      tags: ['admin'],
      summary: '/api/v1/admin/truth/summary',
      description: 'Known-answer self-tests through the real routes (digests, SAT/UNSAT, occupancy, diff round trip, backtest), per-operation provenance, envelopes without flags.',
      querystring: rerunQuery,
      response: responses(truthSummarySchema),
    },
  }, async (req) => {
    const { rerun } = req.query as z.infer<typeof rerunQuery>
    return rerun === '1' || rerun === 'true' ? truth.run('rerun') : truth.latest()
  })

  app.get('/command-post/summary', {
    schema: {
      tags: ['admin'],
      summary: '/api/v1/admin/command-post/summary',
      description: 'Live operations: requests by surface/route/status, latency percentiles, error rate, event loop, memory, mill, database size. Also at /metrics (Prometheus text).',
      response: responses(commandPostSchema),
    },
  }, async (): Promise<z.infer<typeof commandPostSchema>> => app.metrics.snapshot())

  app.get('/go-live/overview', {
    schema: {
      tags: ['admin'],
      summary: '/api/v1/admin/go-live/overview',
      description: 'The go-live readiness report: boot smoke checks, blockers, advisories, weighted score, plan, dependency, migration, startup and environment summaries.',
      response: responses(readinessReportSchema),
    },
  }, async (req) => collector.report({ smoke: isSmokeRequest(req) }))
}
