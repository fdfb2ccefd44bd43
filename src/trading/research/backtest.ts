// One backtest of a strategy on a dataset (backtesting.py 0.6.6 semantics), run in the mill and stored as a run.
import type { BacktestPayload } from '../../mill/tasks/trading.js'
import { resolveDataset } from '../datasets.js'
import { downsample, iso, statsView, tradeView } from '../present.js'
import type { StoredRunRef } from '../runs.js'
import type { BacktestAnswer, BacktestBody } from '../schemas.js'
import type { ResearchDeps } from './deps.js'
import { briefOf, needBars, optionsOf, rangeOf, settingsOf, strategyParamsOf } from './inputs.js'
import { STORED_EQUITY_POINTS } from './limits.js'

/** The answer without its run reference, for a recomputation that stores nothing (a stored run's trades read back). */
export type BacktestRecomputed = Omit<BacktestAnswer, 'run'> & { run: null }

export async function backtest(deps: ResearchDeps, body: BacktestBody): Promise<BacktestAnswer> {
  return runBacktest(deps, body, true)
}

/** The same computation without storing a run. */
export async function recomputeBacktest(deps: ResearchDeps, body: BacktestBody): Promise<BacktestRecomputed> {
  return runBacktest(deps, body, false)
}

async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: true): Promise<BacktestAnswer>
async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: false): Promise<BacktestRecomputed>
async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: boolean): Promise<BacktestAnswer | BacktestRecomputed> {
  const dataset = await resolveDataset(deps.repo, body.dataset)
  const params = strategyParamsOf(body.strategy, body.params)
  const range = rangeOf(body.from, body.to)
  const bars = await deps.bars.get(dataset, range)
  needBars(bars, 2, dataset, range)
  const payload: BacktestPayload = { bars, strategy: body.strategy, params, options: optionsOf(body) }
  const { result, elapsedMs } = await deps.heavy('trading.backtest', 'trading.backtest', payload, body.timeout_ms)
  const stats = statsView(result.stats)
  const settings = settingsOf(body)
  const first = bars.ts[0]!
  const last = bars.ts[bars.ts.length - 1]!
  const run: StoredRunRef | null = !persist ? null : await deps.runs.record('backtest', dataset, {
    strategy: body.strategy,
    params,
    request: { ...body, params },
    inputs: { strategy: body.strategy, params, settings, from: first, to: last },
    stats,
    // The curve is most of a run's bytes: kept only when the caller asks for it.
    equity: body.include.includes('equity') ? downsample(bars.ts, result.equity, STORED_EQUITY_POINTS) : null,
    elapsedMs,
  })
  const total = bars.ts.length
  const points = body.include.includes('equity') ? downsample(bars.ts, result.equity, body.equity_points ?? total) : null
  return {
    run,
    dataset: { ...briefOf(dataset), bars: total, from: iso(first), to: iso(last) },
    strategy: body.strategy,
    params,
    settings,
    stats,
    ...(body.include.includes('trades') ? { trades: result.trades.map(tradeView) } : {}),
    ...(points ? { equity: { points, total_points: total, downsampled: points.length < total } } : {}),
  }
}
