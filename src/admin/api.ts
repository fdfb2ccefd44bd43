// The admin JSON routes under /api/v1/admin (registered inside the caller plugin, so they are enveloped like the rest).
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { isSmokeRequest } from '../access/internal.js'
import { commandPostSchema, dependencySummarySchema, readinessReportSchema, truthSummarySchema, type ContractDependencySummary } from './schemas.js'
import type { ReadinessReport } from './readiness.js'
import { answerBytes, answerSchema, splicedAnswer } from '../json/serializer.js'
import type { JsonBytes } from '../json/bytes.js'
import { okEnvelope, refusalEnvelope } from '../http/envelope.js'

// Re-exported for tests that wait for the start-up report.
export { START_REPORT_DELAY_MS } from './collectors.js'

const responses = <T extends z.ZodType>(data: T) => ({ 200: okEnvelope(data), '4xx': refusalEnvelope, '5xx': refusalEnvelope })

const rerunQuery = z.object({
  rerun: z.enum(['0', '1', 'true', 'false']).optional().describe('1 runs every known-answer test again before answering'),
}).strict()

export default async function adminApi(app: FastifyInstance) {
  const { truth, readiness } = app.adminCollectors

  // With ADMIN_TOKEN set: the admin token or a grant with admin:read (the access policy's admin.read, asked by the
  // host's access plugin); in-process checks carry the internal marker.

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
  }, async (req) => reportAnswer(await readiness.report({ smoke: isSmokeRequest(req) })))
}

const dependencySchema = answerSchema(dependencySummarySchema)
/** The Node analysis written once per analysis (~60 KB: every package of the tree), not once per report. */
const writtenSummaries = new WeakMap<ContractDependencySummary, Uint8Array>()

/** The report with its Node dependency analysis spliced in as the bytes it was written to. */
function reportAnswer(report: ReadinessReport): JsonBytes {
  const node = report.node_dependency_summary
  let written = writtenSummaries.get(node)
  if (!written) writtenSummaries.set(node, (written = answerBytes(dependencySchema, node)))
  return splicedAnswer(readinessReportSchema, { ...report, node_dependency_summary: null }, { node_dependency_summary: written })
}
