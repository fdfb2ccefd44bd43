// /api/v11: the current platform API — system, datasets, backtest, simulate, walk-forward signal, paper full cycle.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { Refusal } from '../../refusal.js'
import { refuseOverRows } from '../../body-parse/formats.js'
import { readBody } from '../../plugins/json-body.js'
import { ownTurn } from '../../store/turns.js'
import type { TradingContext } from '../context.js'
import { TAGS } from '../context.js'
import { fullCycleBody } from '../schemas.js'
import { importCsvText } from '../datasets.js'
import {
  backtestAnswer, backtestBody, dbStatsAnswer, importAnswer, importBody, importQuery, modeAnswer,
  simulateAnswer, simulateBody, v11HealthAnswer, verifyAnswer,
} from '../schemas.js'
import { maxEdgeBody } from '../schemas.js'
import { tradingJob } from '../jobs.js'
import { jobBudgetNote, JUDGE_BY_PATH } from '../../jobs/budget.js'
import { jobViewSchema } from '../../jobs/types.js'
import { MODE_REASON } from '../system.js'
import { problemResponses, requireScope, tradingNotFound } from './common.js'
import {
  BACKTEST_EXAMPLES, FULL_CYCLE_EXAMPLES, IMPORT_EXAMPLES, MAX_EDGE_EXAMPLES, SCOPE_REFUSALS, SIMULATE_EXAMPLES,
} from './examples.js'

const JOB_NOTE = ' Runs as a job: with `Prefer: respond-async` the answer is 202 with the job (Location: /api/v11/jobs/{id}) to poll, ' +
  'watch (…/events, Server-Sent Events) or cancel (DELETE); without it the call waits for the job. An Idempotency-Key returns the same job.'

export default async function v11Routes(parent: FastifyInstance, ctx: TradingContext) {
  const app = parent.withTypeProvider<ZodTypeProvider>()
  const { service, system, cycles, clock, config } = ctx
  app.setNotFoundHandler(tradingNotFound)
  // CSV bodies arrive as one string, read (and over 1 MiB decoded and their rows counted) by the host's body reader.
  const csvFormat = { kind: 'csv', maxRows: config.csvMaxRows } as const
  app.addContentTypeParser('text/csv', (req: FastifyRequest, payload: Readable) => readBody(parent.bodyReader, req, payload, csvFormat))
  // What `curl -d` sends without a content type: refused with the way to send a file as it is.
  app.addContentTypeParser('application/x-www-form-urlencoded', async () => {
    throw new Refusal('invalid_input', 'a form-encoded body (what `curl -d` sends) is not taken here: send JSON, or a CSV ' +
      'import as text/csv with `curl --data-binary @file.csv -H "content-type: text/csv"` (-d strips line breaks)')
  })
  const tags = [TAGS.v11]

  app.get('/system/inventory', {
    schema: {
      tags, summary: 'Datasets, strategies with parameter schemas, routes, and counts of runs, orders and fills',
      response: { 200: z.record(z.string(), z.unknown()), ...problemResponses },
    },
  }, async () => system.inventory(parent.routeTable.filter((r) => r.surface === 'trading')))

  app.get('/system/health', {
    schema: { tags, summary: 'Platform health with per-component checks', response: { 200: v11HealthAnswer, 503: v11HealthAnswer, ...problemResponses } },
  }, async (_req, reply) => {
    const health = await system.v11Health()
    return reply.code(health.status === 'down' ? 503 : 200).send(health)
  })

  app.get('/system/mode', {
    schema: { tags, summary: 'Execution mode: paper only, live trading off', response: { 200: modeAnswer } },
  }, async () => ({ mode: 'paper' as const, live_trading: false as const, reason: MODE_REASON, broker: null }))

  app.get('/system/verify', {
    schema: {
      tags, summary: 'Integrity checks: the database\'s own (SQLite integrity and foreign keys; PostgreSQL index and constraint validity), dataset checksums, OHLC sanity, ledger re-derived from fills',
      description: 'Each check passes or fails with a detail; `ok` is true only when every check passes.',
      response: { 200: verifyAnswer },
    },
  }, async () => system.verify())

  app.get('/db/stats', {
    schema: { tags, summary: 'Per-table row counts, the backend (SQLite or PostgreSQL) and its version; SQLite: pages, file and WAL size, journal mode; PostgreSQL: database and per-table sizes', response: { 200: dbStatsAnswer } },
  }, async () => {
    // ~1 ms of synchronous pragmas and counts per answer, more as the database grows: a burst of 30 in one poll of the
    // sockets ran them back to back (20-40 ms, issue #13). Each answer reads in a turn of its own.
    await ownTurn()
    return system.dbStats()
  })

  app.post('/datasets', {
    bodyLimit: config.largeBodyLimitBytes,
    onRequest: requireScope(ctx, 'trading:write', 'trading.datasets.import'),
    config: { examples: IMPORT_EXAMPLES, refusals: SCOPE_REFUSALS },
    schema: {
      tags,
      summary: 'Import OHLCV bars from CSV (all or nothing); needs scope trading:write',
      description: 'Send `text/csv` with `?symbol=&timeframe=`, or JSON `{symbol, timeframe?, csv}`. Header Date,Open,High,Low,Close,Volume ' +
        '(any case; the date column may be unnamed). Rows are validated (strictly increasing time, positive prices, low ≤ open, close ≤ high); ' +
        'a bad row is reported with its line number and nothing is written. Importing the same bars again answers 200 with `created: false`.',
      consumes: ['text/csv', 'application/json'],
      querystring: importQuery,
      body: importBody,
      response: { 200: importAnswer, 201: importAnswer, ...problemResponses },
    },
  }, async (req, reply) => {
    const body = req.body
    const fromJson = typeof body === 'object'
    const symbol = fromJson ? body.symbol : req.query.symbol
    const timeframe = fromJson ? body.timeframe ?? req.query.timeframe : req.query.timeframe
    if (!symbol) {
      throw new Refusal('invalid_input', 'symbol is required: ?symbol= with a text/csv body, or "symbol" in a JSON body', {
        issues: [{ path: 'querystring.symbol', message: 'required' }],
      })
    }
    const csv = fromJson ? body.csv : body
    if (fromJson) refuseOverRows(csv, config.csvMaxRows) // a text/csv body's rows were counted as it was read
    const result = await importCsvText(ctx.store.sql, csv, { symbol, timeframe, origin: 'http', now: clock.now(), parse: service.parseCsv })
    return reply.code(result.created ? 201 : 200).send({ id: result.dataset.id, created: result.created, dataset: result.dataset })
  })

  app.post('/trading/backtest', {
    ...JUDGE_BY_PATH,
    config: { examples: BACKTEST_EXAMPLES, refusals: ['not_found'] },
    schema: {
      tags, summary: 'Backtest a strategy on a dataset (backtesting.py 0.6.6 semantics); the run is stored with its inputs\' digest',
      body: backtestBody,
      description: JOB_NOTE + jobBudgetNote(backtestBody, config.jobMaxMs),
      response: { 200: backtestAnswer, 202: jobViewSchema, ...problemResponses },
    },
  }, async (req, reply) => tradingJob(parent, service, req, reply, 'trading.backtest') as Promise<z.infer<typeof backtestAnswer>>)

  app.post('/trading/simulate', {
    ...JUDGE_BY_PATH,
    config: { examples: SIMULATE_EXAMPLES, refusals: ['not_found'] },
    schema: {
      tags, summary: 'Monte Carlo of a strategy: bootstrap or GBM paths; percentiles of return, drawdown and Sharpe, loss probability, VaR, CVaR',
      description: 'Reproducible: the same body (seed included) gives the same numbers.' + JOB_NOTE + jobBudgetNote(simulateBody, config.jobMaxMs),
      body: simulateBody,
      response: { 200: simulateAnswer, 202: jobViewSchema, ...problemResponses },
    },
  }, async (req, reply) => tradingJob(parent, service, req, reply, 'trading.simulate') as Promise<z.infer<typeof simulateAnswer>>)

  app.post('/trading/max-edge-signal', {
    ...JUDGE_BY_PATH,
    config: { examples: MAX_EDGE_EXAMPLES, refusals: ['not_found'] },
    schema: {
      tags,
      summary: 'Walk-forward search over strategies × parameter grids, scored out of sample; the best configuration and its latest signal',
      description: 'Each configuration is chosen on rolling in-sample windows and scored on the following out-of-sample window, net of costs. ' +
        'Answers the configuration with the highest out-of-sample edge, its out-of-sample statistics, the number of configurations tried, ' +
        'the deflated Sharpe ratio (multiple-testing aware) and the signal for the latest bar.' + JOB_NOTE + jobBudgetNote(maxEdgeBody, config.jobMaxMs),
      body: maxEdgeBody,
      response: { 200: z.record(z.string(), z.unknown()), 202: jobViewSchema, ...problemResponses },
    },
  }, async (req, reply) => tradingJob(parent, service, req, reply, 'trading.max-edge-signal') as Promise<Record<string, unknown>>)

  app.post('/trading/full-cycle', {
    // It writes the paper ledger (orders, fills, cash): beyond a run's own record, so it needs the scope.
    onRequest: requireScope(ctx, 'trading:write', 'trading.full-cycle'),
    config: { examples: FULL_CYCLE_EXAMPLES, refusals: [...SCOPE_REFUSALS, 'not_found', 'conflict'] },
    schema: {
      tags,
      summary: 'Paper full cycle: signal → ATR risk sizing → paper order → fill at the latest close with slippage → ledger, in one transaction; needs scope trading:write',
      description: 'With an `Idempotency-Key` header a repeat of the same body returns the first cycle (header `Idempotent-Replayed: true`) ' +
        'and never a second order; the same key with another body is refused with 409. `mode: "live"` is refused: paper only.',
      headers: z.looseObject({ 'idempotency-key': z.string().min(1).max(200).optional() }),
      body: fullCycleBody,
      response: { 200: z.record(z.string(), z.unknown()), 201: z.record(z.string(), z.unknown()), ...problemResponses },
    },
  }, async (req, reply) => {
    const key = req.headers['idempotency-key']
    const answer = await cycles.run(req.body, typeof key === 'string' ? key : null)
    if (answer.replayed) reply.header('idempotent-replayed', 'true')
    return reply.code(answer.status).send(answer.body)
  })
}
