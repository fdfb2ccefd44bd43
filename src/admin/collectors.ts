// The admin's collectors, created once per host: the known-answer (truth) runner and the readiness report. The JSON
// routes and the /admin page both call them directly; the report is also built once shortly after the server listens.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createReadinessCollector, type ReadinessCollector } from './collect.js'
import type { PythonProbe } from '../analysers/dependencies/index.js'
import { createTruthRunner, type SandboxLease, type TruthRunner } from './truth.js'
import { ADMISSION_SAMPLE_MS } from '../plugins/admission.js'

declare module 'fastify' {
  interface FastifyInstance {
    adminCollectors: { truth: TruthRunner; readiness: ReadinessCollector }
  }
}

export interface AdminCollectorOptions {
  /** Replaces the host's python3 in the dependency analysis (tests). */
  pythonProbe?: (modules: readonly string[]) => Promise<PythonProbe>
  /** The tree the readiness report analyses; defaults to the repo root. */
  rootDir?: string
  /**
   * Builds the throwaway host the known-answer tests run in; without it they run against this host. Built for each
   * self-test run — on a server, the start report's, 2 s after listening — so it never delays the first answer.
   */
  selfTestHost?: () => Promise<FastifyInstance>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const START_REPORT_DELAY_MS = 2000

export default fp(
  async function adminCollectorsPlugin(app: FastifyInstance, opts: AdminCollectorOptions) {
    const config = app.config
    const now = () => app.clock.now()
    // The self-test host: built for each run and released after it; one still open when this host closes is closed
    // with it.
    const open = new Set<Promise<FastifyInstance>>()
    const selfTestHost = opts.selfTestHost
      ? async (): Promise<SandboxLease> => {
        const building = opts.selfTestHost!()
        open.add(building)
        const release = async () => {
          open.delete(building)
          await (await building.catch(() => null))?.close()
        }
        const host = await building.catch(async (err: unknown) => {
          open.delete(building)
          throw err
        })
        // Built just now: the build blocked the event loop, and the occupancy sampler reads its next window as
        // overload. Let it take that sample, then wait (bounded) for it to settle, so the heavy known answers are not
        // refused as `occupied` because of our own build.
        await sleep(ADMISSION_SAMPLE_MS + 100)
        for (let waited = 0; app.admission.state() !== 'live-bound' && waited < 3000; waited += 100) await sleep(100)
        return { host, release }
      }
      : null
    app.addHook('onClose', async () => {
      await Promise.all([...open].map(async (building) => (await building.catch(() => null))?.close()))
    })
    const truth = createTruthRunner(app, {
      operations: app.registry.operations,
      adminToken: config.adminToken,
      now,
      envelopesWithoutFlags: () => (app.hasDecorator('callerCounters') ? app.callerCounters.envelopesWithoutFlags : 0),
      ...(selfTestHost ? { sandbox: selfTestHost } : {}),
    })
    const readiness = createReadinessCollector(app, {
      config,
      truth,
      now,
      ...(opts.rootDir ? { rootDir: opts.rootDir } : {}),
      ...(opts.pythonProbe ? { pythonProbe: opts.pythonProbe } : {}),
    })
    app.decorate('adminCollectors', { truth, readiness })

    // At start: the known-answer tests, then the boot smoke checks and the report, summarised in the log.
    const bootReport = async () => {
      await truth.run('start')
      const report = await readiness.report({ smoke: false })
      const line = { status: report.summary.status, boot: report.summary.boot_status, score: report.summary.readiness_score, plan: report.plan.readiness }
      const blockers = report.blockers.required_blockers
      if (blockers.length > 0) app.log.warn({ ...line, blockers: blockers.map((b) => `${b.kind}: ${b.detail}`) }, 'go-live readiness: blocked')
      else app.log.info(line, `go-live readiness: ${report.summary.status}`)
    }

    // "Run at start": shortly after the server listens, once the event-loop sampler has measured the settled loop (the
    // first sample after a busy start reads as overloaded, and heavy operations would be refused with `occupied`).
    // An inject-only app runs the known-answer tests on the first request instead.
    let startRun: NodeJS.Timeout | null = null
    let closing = false
    app.addHook('onListen', async () => {
      startRun = setTimeout(() => {
        void bootReport().then(() => app.startup.finished('done'), (err: unknown) => {
          app.startup.finished('failed')
          if (!closing) app.log.error({ err }, 'the go-live readiness report failed at start')
        })
      }, START_REPORT_DELAY_MS)
      startRun.unref()
    })
    app.addHook('preClose', async () => {
      closing = true
      if (startRun) clearTimeout(startRun)
    })
  },
  { name: 'ncm-admin-collectors', fastify: '5.x', dependencies: ['ncm-store', 'ncm-auth', 'ncm-probes'] },
)
