// One backtest of a strategy on a dataset (backtesting.py 0.6.6 semantics), run in the mill and stored as a run.
import type { BacktestPayload } from '../../mill/tasks/trading.js'
import { writtenFromAscii } from '../../written-ascii.js'
import type { WrittenJson } from '../../written-json.js'
import { resolveDataset } from '../datasets.js'
import { iso, statsView } from '../present.js'
import type { StoredRunRef } from '../runs.js'
import type { BacktestAnswer, BacktestBody } from '../schemas.js'
import type { ResearchDeps } from './deps.js'
import { briefOf, needBars, optionsOf, rangeOf, settingsOf, strategyParamsOf } from './inputs.js'
import { STORED_EQUITY_POINTS } from './limits.js'
import { EQUITY_MAX_POINTS, INLINE_TRADES_MAX } from '../../engines/trading/answer-caps.js'
import { tradesCursorAfter } from '../run-results.js'

/** The answer, its trades and curve points already written as JSON text (the answer's writer splices them in). */
export type BacktestWritten = Omit<BacktestAnswer, 'trades' | 'equity'> & {
  trades?: WrittenJson
  equity?: Omit<NonNullable<BacktestAnswer['equity']>, 'points'> & { points: WrittenJson }
}

/** The answer without its run reference, for a recomputation that stores nothing (a stored run's trades read back). */
export type BacktestRecomputed = Omit<BacktestWritten, 'run'> & { run: null }

export async function backtest(deps: ResearchDeps, body: BacktestBody): Promise<BacktestWritten> {
  return runBacktest(deps, body, true)
}

/** The same computation without storing a run. */
export async function recomputeBacktest(deps: ResearchDeps, body: BacktestBody): Promise<BacktestRecomputed> {
  return runBacktest(deps, body, false)
}

async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: true): Promise<BacktestWritten>
async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: false): Promise<BacktestRecomputed>
async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: boolean): Promise<BacktestWritten | BacktestRecomputed> {
  const dataset = await resolveDataset(deps.repo, body.dataset)
  const params = strategyParamsOf(body.strategy, body.params)
  const range = rangeOf(body.from, body.to)
  const bars = await deps.bars.get(dataset, range)
  needBars(bars, 2, dataset, range)
  const total = bars.ts.length
  const withEquity = body.include.includes('equity')
  const payload: BacktestPayload = {
    bars, strategy: body.strategy, params, options: optionsOf(body),
    // The curve and the trades are written in the mill; the loop only passes their text on.
    shown: {
      equityPoints: withEquity ? body.equity_points ?? EQUITY_MAX_POINTS : null,
      trades: body.include.includes('trades'),
      // A stored run keeps a downsampled curve for the command center, and every trade and point to be paged.
      storedEquityPoints: persist ? STORED_EQUITY_POINTS : null,
      keep: persist,
    },
  }
  const { result, elapsedMs } = await deps.heavy('trading.backtest', 'trading.backtest', payload, body.timeout_ms)
  const stats = statsView(result.stats, result.annualization)
  const settings = settingsOf(body)
  const first = bars.ts[0]!
  const last = bars.ts[total - 1]!
  const run: StoredRunRef | null = !persist ? null : await deps.runs.record('backtest', dataset, {
    strategy: body.strategy,
    params,
    request: { ...body, params },
    inputs: { strategy: body.strategy, params, settings, from: first, to: last },
    stats,
    equity: result.storedEquity,
    results: result.kept,
    elapsedMs,
  })
  const trades = result.trades && await writtenFromAscii(result.trades)
  const shownTrades = Math.min(result.tradesTotal, INLINE_TRADES_MAX)
  // The trades after those shown are paged from the stored run.
  const tradePages = trades && {
    trades_total: result.tradesTotal,
    trades_next_cursor: run && shownTrades < result.tradesTotal ? tradesCursorAfter(shownTrades) : null,
  }
  const equity = result.equity && { points: await writtenFromAscii(result.equity.text), total_points: total, downsampled: result.equity.points < total }
  return {
    run,
    dataset: { ...briefOf(dataset), bars: total, from: iso(first), to: iso(last) },
    strategy: body.strategy,
    params,
    settings,
    stats,
    ...(trades ? { trades, ...tradePages } : {}),
    ...(equity ? { equity } : {}),
  }
}
