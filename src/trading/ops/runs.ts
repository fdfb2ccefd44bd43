// Stored runs read back: the list (paged) and one run with its inputs, statistics and equity curve.
import { defineTradingOperation } from '../operation.js'
import { runDetail, runListQuery, runPage, runParams, runQuery } from '../readback-schemas.js'
import { PAGING } from './paging-note.js'
import { listedRunOwner, runFor } from '../run-access.js'
import { INLINE_TRADES_MAX } from '../../engines/trading/answer-caps.js'

export const runOperations = [
  defineTradingOperation({
    name: 'trading.runs.list',
    method: 'GET',
    group: 'v11',
    path: '/runs',
    action: 'run.list',
    summary: 'Your stored runs (backtests, simulations, signal searches), newest first; filter by kind, dataset, strategy (admin:read: every run)',
    description: PAGING,
    query: runListQuery,
    output: runPage,
    mcp: { name: 'trading_runs', title: 'Stored runs, newest first' },
    handler: (input, call) => call.readback.runs(input, listedRunOwner(call)),
  }),
  defineTradingOperation({
    name: 'trading.runs.get',
    method: 'GET',
    group: 'v11',
    path: '/runs/:id',
    action: 'run.read',
    summary: 'One stored run: its inputs, statistics, equity curve (as stored, downsampled) and, on request, its trades',
    description: `\`?include=trades\` inlines the first ${INLINE_TRADES_MAX} trades stored with the run (GET /api/v11/runs/{id}/trades pages them ` +
      'all); for a run stored before runs kept their trades it recomputes them from the stored inputs (a backtest in the mill) and says ' +
      'whether the recomputed statistics equal the stored ones. A run stored without an equity curve answers `equity: null` with the reason.',
    params: runParams,
    query: runQuery,
    output: runDetail,
    // A run's first 1,000 trades come to hundreds of KB: their memory is reserved while the answer is held and sent.
    largeAnswer: true,
    handler: async ({ id, include, equity_points }, call) =>
      call.readback.run(await runFor(call, id), { withTrades: include === 'trades', equityPoints: equity_points }, call.principal.owner),
  }),
]
