// The research operations of the platform as jobs: each one's executor (the service call) and the schema its sync
// route answers with, so a job's stored answer is exactly the sync answer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { submitOrWait } from '../jobs/submit.js'
import { projector } from '../jobs/view.js'
import { backtestAnswer, simulateAnswer, type BacktestBody, type MaxEdgeBody, type MaxEdgeV10Body, type SimulateBody } from './schemas.js'
import type { TradingService } from './service.js'

const anyAnswer = z.record(z.string(), z.unknown())

export const TRADING_JOBS = {
  'trading.backtest': { answer: backtestAnswer, run: (s: TradingService, input: unknown) => s.backtest(input as BacktestBody) },
  'trading.simulate': { answer: simulateAnswer, run: (s: TradingService, input: unknown) => s.simulate(input as SimulateBody) },
  'trading.max-edge-signal': { answer: anyAnswer, run: (s: TradingService, input: unknown) => s.maxEdgeSignal(input as MaxEdgeBody) },
  'trading.max-edge-signal.v10': { answer: anyAnswer, run: (s: TradingService, input: unknown) => s.maxEdgeSignalV10(input as MaxEdgeV10Body) },
} as const
export type TradingJobOp = keyof typeof TRADING_JOBS

export function defineTradingJobs(app: FastifyInstance, service: TradingService): void {
  for (const [op, { answer, run }] of Object.entries(TRADING_JOBS)) {
    const project = projector(answer)
    app.jobs.define(op, async (input) => project(await run(service, input)))
  }
}

/**
 * A research route, refusing first: an unknown dataset (404, as the sync call always answered it), then shedding
 * load; then a job (202 with Prefer: respond-async, else its answer). Other input checks run in the job.
 */
export async function tradingJob(
  app: FastifyInstance, service: TradingService, req: FastifyRequest, reply: FastifyReply, op: TradingJobOp, input: { dataset: number | string },
) {
  service.dataset(input.dataset)
  app.admission.admitHeavy(op)
  const submitted = await submitOrWait(app.jobs, req, reply, { op, surface: 'trading', input })
  return submitted.async ? reply.send(submitted.view) : submitted.result
}
