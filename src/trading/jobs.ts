// The heavy trading operations as jobs: each one's executor is its handler, and its answer is written through its
// route's response schema, so a job's stored answer is exactly the sync answer.
import type { FastifyInstance } from 'fastify'
import { baseUrlOf } from '../http/base-url.js'
import { answerWriter } from '../jobs/view.js'
import type { TradingContext } from './context.js'
import type { TradingOperation } from './operation.js'
import { jobPrincipal } from '../access/policy.js'
import { runOfEffect } from './runs.js'

export function defineTradingJobs(app: FastifyInstance, context: TradingContext, operations: readonly TradingOperation[]): void {
  for (const op of operations) {
    if (!op.heavy) continue
    const write = answerWriter(op.output)
    app.jobs.define(op.name, async (input, run) => write(await op.handler(input, {
      // The submission was authorized; the run acts for the host, and what it stores is the job owner's.
      ...context, host: app, credential: null, principal: jobPrincipal(run.owner), requestId: run.jobId, baseUrl: baseUrlOf(null, context.config), log: app.log.child({ job: run.jobId }),
    })), {
      shared: op.heavy.measuresNow !== true, // a replay measures the engine now: never shared
      // A shared job names a run: shared only while that run is still its owner's (not deleted or pruned).
      stands: async (effect, owner) => {
        const id = runOfEffect(effect)
        return id !== null && (await context.service.repo.runWithOwner(id, owner))?.owned === true
      },
    })
  }
}
