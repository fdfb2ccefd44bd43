// The research operations of the platform as jobs: each one's executor (the service call) and the schema its sync
// route answers with, so a job's stored answer is exactly the sync answer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { inputForPath } from '../jobs/budget.js'
import { submitOrWait } from '../jobs/submit.js'
import { answerWriter } from '../jobs/view.js'
import { passesChecks } from './research/check.js'
import { backtestAnswer, backtestBody, maxEdgeBody, maxEdgeV10Body, simulateAnswer, simulateBody } from './schemas.js'
import type { TradingService } from './service.js'

const anyAnswer = z.record(z.string(), z.unknown())

/** Per op: its request schema, its answer schema, and the service method that runs it. */
export const TRADING_JOBS = {
  'trading.backtest': { body: backtestBody, answer: backtestAnswer, method: 'backtest' },
  'trading.simulate': { body: simulateBody, answer: simulateAnswer, method: 'simulate' },
  'trading.max-edge-signal': { body: maxEdgeBody, answer: anyAnswer, method: 'maxEdgeSignal' },
  'trading.max-edge-signal.v10': { body: maxEdgeV10Body, answer: anyAnswer, method: 'maxEdgeSignalV10' },
} as const
export type TradingJobOp = keyof typeof TRADING_JOBS

type Research = (input: unknown) => Promise<unknown>

export function defineTradingJobs(app: FastifyInstance, service: TradingService): void {
  for (const [op, { answer, method }] of Object.entries(TRADING_JOBS)) {
    const write = answerWriter(answer)
    const run = service[method] as Research
    app.jobs.define(op, async (input) => write(await run(input)))
  }
}

/**
 * A research route, refusing first: its input (the schema, with a job's longer budget when async), then every check the
 * operation makes before its heavy work (unknown dataset 404, bars out of range, grid limits 422…), then shedding load.
 * Only then a job: 202 with Prefer: respond-async, else its answer.
 */
export async function tradingJob(app: FastifyInstance, service: TradingService, req: FastifyRequest, reply: FastifyReply, op: TradingJobOp) {
  const { body, method } = TRADING_JOBS[op]
  const input = inputForPath<unknown>(req, body, app.config.jobMaxMs)
  await passesChecks((service.inputCheck[method] as Research)(input))
  app.admission.admitHeavy(op)
  const submitted = await submitOrWait(app.jobs, req, reply, { op, surface: 'trading', input })
  return submitted.async ? reply.send(submitted.view) : submitted.result
}
