// One backtest of a strategy on a dataset (backtesting.py 0.6.6 semantics), run in the mill and stored as a run.
import type { BacktestPayload } from '../../mill/tasks/trading.js'
import type { JsonBytes } from '../../json/bytes.js'
import { answerSchema, splicedAnswer } from '../../json/serializer.js'
import { resolveDataset } from '../datasets.js'
import { iso, statsView } from '../present.js'
import type { StoredRunRef } from '../runs.js'
import { backtestAnswer, type BacktestAnswer, type BacktestBody } from '../schemas.js'
import type { ResearchDeps } from './deps.js'
import { briefOf, needBars, optionsOf, rangeOf, settingsOf, strategyParamsOf } from './inputs.js'
import { STORED_EQUITY_POINTS } from './limits.js'
import { EQUITY_MAX_POINTS, INLINE_TRADES_MAX } from '../../engines/trading/answer-caps.js'
import { tradesCursorAfter } from '../run-results.js'

/** The answer but its trades and curve, which come written by the mill (their schemas' text, as bytes). */
interface BacktestComputed<Run> {
  answer: Omit<BacktestAnswer, 'trades' | 'equity' | 'run'> & { run: Run }
  written: { trades: Uint8Array | null; equity: Uint8Array | null }
}

/** The answer's members written in the mill, by the route's own schemas for them. */
const members = { trades: answerSchema(backtestAnswer.shape.trades.unwrap()), equity: answerSchema(backtestAnswer.shape.equity.unwrap()) }

/** The answer as bytes: the small members written here around the trades and curve the mill wrote. */
export async function backtest(deps: ResearchDeps, body: BacktestBody): Promise<JsonBytes> {
  const { answer, written } = await runBacktest(deps, body, true)
  return splicedAnswer(backtestAnswer, answer, written)
}

/** The same computation without storing a run (a stored run's trades read back): its statistics and written trades. */
export async function recomputeBacktest(deps: ResearchDeps, body: BacktestBody): Promise<Pick<BacktestAnswer, 'stats' | 'trades_total'> & { trades: Uint8Array | null }> {
  const { answer, written } = await runBacktest(deps, body, false)
  return { stats: answer.stats, trades_total: answer.trades_total, trades: written.trades }
}

async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: true): Promise<BacktestComputed<StoredRunRef>>
async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: false): Promise<BacktestComputed<null>>
async function runBacktest(deps: ResearchDeps, body: BacktestBody, persist: boolean): Promise<BacktestComputed<StoredRunRef | null>> {
  const dataset = await resolveDataset(deps.repo, body.dataset)
  const params = strategyParamsOf(body.strategy, body.params)
  const range = rangeOf(body.from, body.to)
  const bars = await deps.bars.get(dataset, range)
  needBars(bars, 2, dataset, range)
  const total = bars.ts.length
  const withEquity = body.include.includes('equity')
  const payload: BacktestPayload = {
    bars, strategy: body.strategy, params, options: optionsOf(body),
    // The curve and the trades are written in the mill; the loop only passes their bytes on.
    members,
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
  const shownTrades = Math.min(result.tradesTotal, INLINE_TRADES_MAX)
  // The trades after those shown are paged from the stored run.
  const tradePages = result.trades && {
    trades_total: result.tradesTotal,
    trades_next_cursor: run && shownTrades < result.tradesTotal ? tradesCursorAfter(shownTrades) : null,
  }
  const answer = {
    run,
    dataset: { ...briefOf(dataset), bars: total, from: iso(first), to: iso(last) },
    strategy: body.strategy,
    params,
    settings,
    stats,
    ...(tradePages ?? {}),
  }
  return { answer, written: { trades: result.trades, equity: result.equity } }
}
