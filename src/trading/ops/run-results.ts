// What a stored run produced, to take away: trades and equity (paged JSON, or whole as streamed CSV), deletion,
// comparison of runs side by side, and replay.
import { z } from 'zod'
import { Answer, defineTradingOperation } from '../operation.js'
import { renderReport, REPORT_CSP, REPORT_TRADES } from '../report.js'
import { compareRuns, parseRunIds } from '../run-compare.js'
import { replayRun } from '../run-replay.js'
import { listedRunOwner, runFor, unknownRun } from '../run-access.js'
import { resultsNotStored } from '../run-results.js'
import {
  compareAnswer, compareQuery, equityPage, MONTE_CARLO_MAX_STEPS, monteCarloAnswer, monteCarloQuery, replayAnswer, runDeleted, runPageQuery, runParams, tradesPage,
} from '../run-schemas.js'
import { Refusal } from '../../http/refusal.js'
import { PAGING } from './paging-note.js'

const CSV = 'text/csv; charset=utf-8'
const TAKE_AWAY = ' With `Accept: text/csv` the whole series is one CSV download (streamed); any other Accept than JSON or CSV is refused with 406.'

export const runResultOperations = [
  defineTradingOperation({
    name: 'trading.runs.report',
    method: 'GET',
    group: 'v11',
    path: '/runs/:id/report',
    action: 'run.read',
    summary: 'A stored run as one self-contained HTML page: equity with drawdown beneath, monthly returns, trades, statistics with their provenance; for searches the parameter heat map, the folds and the verdict on overfitting',
    description: 'No script and no request leaving the host: inline CSS (allowed by its hash in the page\'s own Content-Security-Policy) and inline SVG. ' +
      `The trade list shows the first ${REPORT_TRADES} trades and links the rest.`,
    params: runParams,
    output: z.string(),
    produces: { type: 'text/html; charset=utf-8', description: 'the report page' },
    async handler({ id }, call) {
      const repo = call.service.repo
      const run = await runFor(call, id)
      const html = renderReport({
        run,
        dataset: (await repo.datasetById(run.dataset_id)) ?? null,
        equity: run.equity ? (JSON.parse(run.equity) as Array<[number, number]>) : null,
        trades: await repo.runTradesPage(id, 0, REPORT_TRADES),
        tradeCount: await repo.runTradeCount(id),
        trials: await repo.runTrialScores(id),
        resultsNote: resultsNotStored(run)?.note ?? null,
      })
      return new Answer(html, 200, { 'content-security-policy': REPORT_CSP })
    },
  }),
  defineTradingOperation({
    name: 'trading.runs.trades',
    method: 'GET',
    group: 'v11',
    path: '/runs/:id/trades',
    action: 'run.read',
    summary: 'A backtest\'s trades as stored with the run, in order: paged JSON, or every trade as CSV',
    description: PAGING + TAKE_AWAY,
    params: runParams,
    query: runPageQuery,
    output: tradesPage,
    alternates: [{
      type: CSV,
      headers: ({ id }) => ({ 'content-disposition': `attachment; filename="run-${id}-trades.csv"` }),
      body: async ({ id }, call) => call.runResults.tradesCsv(await runFor(call, id)),
    }],
    mcp: { name: 'trading_run_trades', title: 'A stored backtest\'s trades, a page at a time' },
    handler: async ({ id, ...query }, call) => call.runResults.tradesPage(await runFor(call, id), query),
  }),
  defineTradingOperation({
    name: 'trading.runs.equity',
    method: 'GET',
    group: 'v11',
    path: '/runs/:id/equity',
    action: 'run.read',
    summary: 'A backtest\'s equity curve, one point a bar with its drawdown: paged JSON, or the whole curve as CSV',
    description: PAGING + TAKE_AWAY,
    params: runParams,
    query: runPageQuery,
    output: equityPage,
    alternates: [{
      type: CSV,
      headers: ({ id }) => ({ 'content-disposition': `attachment; filename="run-${id}-equity.csv"` }),
      body: async ({ id }, call) => call.runResults.equityCsv(await runFor(call, id)),
    }],
    handler: async ({ id, ...query }, call) => call.runResults.equityPage(await runFor(call, id), query),
  }),
  defineTradingOperation({
    name: 'trading.runs.delete',
    method: 'DELETE',
    group: 'v11',
    path: '/runs/:id',
    action: 'run.delete',
    summary: 'Give up your ownership of a stored run; it goes with its trades, curve and trials when no owner is left (the admin credential deletes it outright); needs scope trading:write',
    description: 'A run is stored once per inputs, and every principal that stored it owns it: deleting takes the caller\'s ownership away ' +
      '(`removed: false` while others still own it). Signals the run emitted stay, unlinked from it. A later request with the same inputs stores ' +
      'the run again, under a new id (ids are never reused): an identical earlier job is shared only while the run it names is still the caller\'s.',
    params: runParams,
    output: runDeleted,
    mcp: { name: 'trading_run_delete', title: 'Delete a stored run' },
    async handler({ id }, call) {
      const row = await runFor(call, id, 'run.delete')
      const everyone = call.host.policy.listedOwner(call.principal, 'run.delete') === null
      const removed = await call.service.repo.transaction(async (tx) => {
        if (everyone) return tx.deleteRun(id)
        const given = await tx.giveUpRun(id, call.principal.owner)
        // Another request of this principal gave it up meanwhile: as for no run.
        if (!given.owned) throw unknownRun(id)
        return given.deleted
      })
      return { deleted: { id: row.id, kind: row.kind, dataset_id: row.dataset_id, strategy: row.strategy, created_at: row.created_at }, removed }
    },
  }),
  defineTradingOperation({
    name: 'trading.runs.compare',
    method: 'GET',
    group: 'v11',
    path: '/runs/compare',
    action: 'run.read',
    summary: 'Runs side by side: their inputs and statistics, and where they differ',
    description: '`?ids=12,15,20` (2 to 10 runs), each one the caller may read (else not_found, as for an unknown id). ' +
      '`differences` lists only the paths (of dataset, inputs, statistics) where the runs differ, with each run\'s value.',
    query: compareQuery,
    output: compareAnswer,
    mcp: { name: 'trading_runs_compare', title: 'Compare stored runs' },
    cli: { name: 'compare-runs', caption: 'Stored runs side by side, and where they differ', example: { ids: '1,2' } },
    handler: ({ ids }, call) => compareRuns(call, parseRunIds(ids)),
  }),
  defineTradingOperation({
    name: 'trading.runs.monte-carlo',
    method: 'GET',
    group: 'v11',
    path: '/runs/:id/monte-carlo',
    action: 'run.read',
    summary: 'Monte Carlo on a backtest\'s trades: their returns resampled with replacement, compounded from the starting cash; equity percentile bands after each number of trades',
    // Its owner's (run.read) at the door; its work in the mill is heavy work, asked by the admission as it starts.
    mill: true,
    description: `Reproducible by seed. Paths × trades is at most ${MONTE_CARLO_MAX_STEPS}. Runs in the mill: heavy work (scope run:heavy where HEAVY_ACCESS=scoped).`,
    params: runParams,
    query: monteCarloQuery,
    output: monteCarloAnswer,
    mcp: { name: 'trading_run_monte_carlo', title: 'Monte Carlo bands of a stored backtest\'s trades' },
    async handler({ id, paths, seed, timeout_ms }, call) {
      const { service, principal } = call
      const run = await runFor(call, id)
      if (run.kind !== 'backtest') throw new Refusal('not_found', `run ${id} is a ${run.kind} run: only backtests have trades to resample`)
      const missing = resultsNotStored(run)
      if (missing) throw new Refusal('not_found', missing.note, { hints: { results: 'not_stored', state: missing.state } })
      const count = await service.repo.runTradeCount(id)
      if (count * paths > MONTE_CARLO_MAX_STEPS) {
        throw new Refusal('over_limit', `paths × trades = ${paths} × ${count}, over the limit of ${MONTE_CARLO_MAX_STEPS}; ask for fewer paths`, {
          hints: { limit: { name: 'monte_carlo_steps', value: MONTE_CARLO_MAX_STEPS, requested: paths * count } },
        })
      }
      const closed = (await service.repo.runTradesPage(id, 0, count)).filter((t) => t.exit_bar !== null)
      if (closed.length === 0) throw new Refusal('invalid_input', `run ${id} has no closed trades to resample`)
      const startEquity = Number((JSON.parse(run.request) as { cash?: number }).cash ?? 10_000)
      const bands = await service.tradeBands({ returns: Float64Array.from(closed, (t) => t.return_pct / 100), startEquity, paths, seed }, timeout_ms, principal)
      return {
        run_id: id, method: 'trade_bootstrap' as const, start_equity: startEquity,
        assumption: 'each trade\'s return compounds the whole equity (the default all-cash sizing); trades are drawn independently',
        ...bands,
      }
    },
  }),
  defineTradingOperation({
    name: 'trading.runs.replay',
    method: 'POST',
    group: 'v11',
    path: '/runs/:id/replay',
    action: 'run.read',
    summary: 'Run a stored run again from its stored request (in the mill, nothing stored) and say whether every statistic is identical',
    description: 'Answers the statistics that differ (path, stored, now), the engine version that stored the run and the one that answered, ' +
      'and both fingerprints (dataset content, strategy, parameters, costs, engine version, seed). Heavy work: a job like the research it repeats.',
    params: runParams,
    output: replayAnswer,
    // The research again, so a job like the research: heavy work of its principal, counted in its share of the queue.
    heavy: { check: async ({ id }, call) => void await runFor(call, id), measuresNow: true },
    mcp: { name: 'trading_run_replay', title: 'Replay a stored run and compare its statistics' },
    cli: { name: 'replay-run', caption: 'Run a stored run again and compare every statistic', example: { id: 1 } },
    handler: async ({ id }, call) => replayRun(call.service, await runFor(call, id)),
  }),
]
