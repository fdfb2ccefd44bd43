// The research operations: backtest, Monte Carlo, the walk-forward signal search (and v10's in-sample grid), and the
// paper full cycle. The heavy ones run as jobs; each refuses a bad input before a job exists.
import { z } from 'zod'
import { Answer, defineTradingOperation } from '../operation.js'
import { passesChecks } from '../research/check.js'
import { BACKTEST_EXAMPLES, FULL_CYCLE_EXAMPLES, MAX_EDGE_EXAMPLES, MAX_EDGE_V10_EXAMPLES, SIMULATE_EXAMPLES } from '../routes/examples.js'
import {
  backtestAnswer, backtestBody, fullCycleBody, maxEdgeBody, maxEdgeV10Body, simulateAnswer, simulateBody,
} from '../schemas.js'

const anyObject = z.record(z.string(), z.unknown())

const JOB_NOTE = ' Runs as a job: with `Prefer: respond-async` the answer is 202 with the job (Location: /api/v11/jobs/{id}) to poll, ' +
  'watch (…/events, Server-Sent Events) or cancel (DELETE); without it the call waits for the job. An Idempotency-Key returns the same job.'

const GOOG_SMA = { dataset: 'GOOG', strategy: 'sma_cross', params: { fast: 10, slow: 20 }, cash: 10_000, commission: 0.002 }

export const researchOperations = [
  defineTradingOperation({
    name: 'trading.backtest',
    method: 'POST',
    group: 'v11',
    path: '/trading/backtest',
    summary: 'Backtest a strategy on a dataset (backtesting.py 0.6.6 semantics); the run is stored with its inputs\' digest',
    description: JOB_NOTE,
    body: backtestBody,
    output: backtestAnswer,
    heavy: { check: (input, { service }) => passesChecks(service.inputCheck.backtest(input)) },
    examples: BACKTEST_EXAMPLES,
    refusals: ['not_found'],
    mcp: { name: 'trading_backtest', title: 'Backtest a strategy on a dataset' },
    cli: { name: 'backtest', caption: 'Backtest a strategy on a dataset (backtesting.py semantics)', example: GOOG_SMA },
    handler: (input, { service, principal }) => service.researchAs(principal.owner).backtest(input) as never,
  }),
  defineTradingOperation({
    name: 'trading.simulate',
    method: 'POST',
    group: 'v11',
    path: '/trading/simulate',
    summary: 'Monte Carlo of a strategy: bootstrap or GBM paths; percentiles of return, drawdown and Sharpe, loss probability, VaR, CVaR',
    description: 'Reproducible: the same body (seed included) gives the same numbers.' + JOB_NOTE,
    body: simulateBody,
    output: simulateAnswer,
    heavy: { check: (input, { service }) => passesChecks(service.inputCheck.simulate(input)) },
    examples: SIMULATE_EXAMPLES,
    refusals: ['not_found'],
    mcp: { name: 'trading_simulate', title: 'Monte Carlo of a strategy' },
    cli: { name: 'simulate', caption: 'Monte Carlo of a strategy: return, drawdown and Sharpe distributions', example: { ...GOOG_SMA, paths: 200, horizon: 252, method: 'bootstrap', seed: 1 } },
    handler: (input, { service, principal }) => service.researchAs(principal.owner).simulate(input),
  }),
  defineTradingOperation({
    name: 'trading.max-edge-signal',
    method: 'POST',
    group: 'v11',
    path: '/trading/max-edge-signal',
    summary: 'Walk-forward search over strategies × parameter grids, scored out of sample; the best configuration and its latest signal',
    description: 'Each configuration is chosen on rolling in-sample windows and scored on the following out-of-sample window, net of costs. ' +
      'Answers the configuration with the highest out-of-sample edge, its out-of-sample statistics, the number of configurations tried, ' +
      'the deflated Sharpe ratio (multiple-testing aware) and the signal for the latest bar.' + JOB_NOTE,
    body: maxEdgeBody,
    output: anyObject,
    heavy: { check: (input, { service }) => passesChecks(service.inputCheck.maxEdgeSignal(input)) },
    examples: MAX_EDGE_EXAMPLES,
    refusals: ['not_found'],
    mcp: { name: 'trading_max_edge_signal', title: 'Walk-forward signal search' },
    cli: { name: 'max-edge-signal', caption: 'Walk-forward signal search scored out of sample', example: { dataset: 'GOOG' } },
    handler: (input, { service, principal }) => service.researchAs(principal.owner).maxEdgeSignal(input),
  }),
  defineTradingOperation({
    name: 'trading.full-cycle',
    method: 'POST',
    group: 'v11',
    path: '/trading/full-cycle',
    // It writes the paper ledger (orders, fills, cash): beyond a run's own record (the policy's ledger.write).
    action: 'ledger.write',
    summary: 'Paper full cycle: signal → ATR risk sizing → paper order → fill at the latest close with slippage → ledger, in one transaction; needs scope trading:write',
    description: 'With an `Idempotency-Key` header a repeat of the same body returns the first cycle (header `Idempotent-Replayed: true`) ' +
      'and never a second order; the same key with another body is refused with 409. `mode: "live"` is refused: paper only.',
    headers: z.looseObject({ 'idempotency-key': z.string().min(1).max(200).optional() }),
    body: fullCycleBody,
    output: anyObject,
    responses: { 201: anyObject },
    examples: FULL_CYCLE_EXAMPLES,
    refusals: ['not_found', 'conflict'],
    async handler(input, { cycles, principal }) {
      const { 'idempotency-key': key, ...body } = input
      // A key names one request of one principal (owned-keys.ts).
      const answer = await cycles.run(body as z.output<typeof fullCycleBody>, key ?? null, principal.owner)
      return new Answer(answer.body, answer.status, answer.replayed ? { 'idempotent-replayed': 'true' } : {})
    },
  }),
  defineTradingOperation({
    name: 'trading.max-edge-signal.v10',
    method: 'POST',
    group: 'v10',
    path: '/trading/max-edge-signal',
    deprecated: true,
    summary: 'v10 signal: in-sample grid over sma_cross only (deprecated: use /api/v11/trading/max-edge-signal)',
    description: 'Every (fast, slow) pair with fast < slow is backtested on all bars and the best by `maximize` gives the signal. ' +
      'In-sample only: the figures are optimistic by construction. With `Prefer: respond-async` it runs as a job (202, Location: /api/v11/jobs/{id}).',
    body: maxEdgeV10Body,
    output: anyObject,
    heavy: { check: (input, { service }) => passesChecks(service.inputCheck.maxEdgeSignalV10(input)) },
    examples: MAX_EDGE_V10_EXAMPLES,
    refusals: ['not_found'],
    handler: (input, { service, principal }) => service.researchAs(principal.owner).maxEdgeSignalV10(input),
  }),
]
