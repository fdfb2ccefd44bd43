// Mill tasks of the trading domain: the pure engine run off the event loop, bars in as typed arrays.
import type { TaskContext, TaskTable } from '../types.js'
import { csvOutcome, gridPairCount, inSampleGrid, runBacktest, simulate, walkForward } from '../../engines/trading/index.js'
import type { CsvOptions, GridSlice, SimulateSpec, SmaGrid, WalkForwardSpec } from '../../engines/trading/index.js'
import { downsample, downsampleIndices } from '../../engines/trading/downsample.js'
import type { BacktestOptions, Bars, Stats, StrategyName, Trade } from '../../engines/trading/types.js'
import { moving } from '../moving.js'
import { tradeBands } from '../../engines/trading/trade-bands.js'
import { searchOverfitting } from '../../engines/trading/overfitting.js'
import { equityChunks, monthlyReturns, tradeBlock, tradeRows } from '../../engines/trading/run-series.js'
import { tradeRecordOf, tradeView, type TradeRecord } from '../../engines/trading/trade-view.js'
import { answerBytes, type AnswerSchema } from '../../json/serializer.js'
import { INLINE_TRADES_MAX } from '../../engines/trading/answer-caps.js'
import { bodyText } from '../../body-parse/formats.js'

interface EngineRun {
  bars: Bars
  strategy: StrategyName
  params: Record<string, number>
  options: BacktestOptions
}

/** What a backtest's answer and its stored run show of the result, prepared here rather than on the event loop. */
export interface BacktestShown {
  /** The answer's equity curve, at most this many points; null: not asked. */
  equityPoints: number | null
  /** The answer's trades (the first INLINE_TRADES_MAX). */
  trades: boolean
  /** The stored run's curve, at most this many points; null: the run keeps none. */
  storedEquityPoints: number | null
  /** The stored run keeps every trade and the whole curve (in chunks), to be paged and downloaded. */
  keep: boolean
}

export interface BacktestPayload extends EngineRun {
  shown: BacktestShown
  /** The schemas of the answer's `trades` and `equity`, which are written here. */
  members: { trades: AnswerSchema; equity: AnswerSchema }
}

/** A figure as the answer shows it: non-finite is null. */
const shown = (x: number | null): number | null => (x !== null && Number.isFinite(x) ? x : null)

/** The engine's trade in the stored columns' terms (return_pct in percent, as tradeBlock stores it), non-finite figures null. */
const engineTrade = (t: Trade): TradeRecord => ({
  size: shown(t.size), entry_bar: t.entryBar, exit_bar: t.exitBar, entry_ts: t.entryTime, exit_ts: t.exitTime,
  entry_price: shown(t.entryPrice), exit_price: shown(t.exitPrice), pnl: shown(t.pnl), return_pct: shown(t.returnPct * 100), commissions: shown(t.commissions),
})

/** A stored run's curve and first trades as GET /api/v11/runs/{id} shows them, written by that route's schemas for them. */
export interface RunMembersPayload {
  /** The stored curve (its JSON text of [epoch ms, equity] pairs) and at most how many points the answer keeps; null: none. */
  equity: { text: string; maxPoints: number | null } | null
  /** The trades shown, as a trade block (TRADE_COLUMNS in order, NaN for null); null: none shown. */
  trades: Float64Array | null
  members: { trades: AnswerSchema; equity: AnswerSchema }
}

/** A stored trade block's rows as the view takes them: NaN (the block's null) is null, the rest as stored. */
const blockTrades = (block: Float64Array): TradeRecord[] => tradeRows(block).map((row) => tradeRecordOf((_, i) => row[i]!))

/** Run on the loop for a small run (src/trading/readback.ts), in a worker for a larger one: the same bytes either way. */
export function runMembers({ equity, trades, members }: RunMembersPayload): { equity: Uint8Array | null; trades: Uint8Array | null } {
  let curve: Uint8Array | null = null
  if (equity) {
    const stored = JSON.parse(equity.text) as Array<[number, number]>
    const points = equity.maxPoints !== null && equity.maxPoints < stored.length
      ? downsample(Float64Array.from(stored, (p) => p[0]), Float64Array.from(stored, (p) => p[1]), equity.maxPoints)
      : stored
    curve = answerBytes(members.equity, { points, stored_points: stored.length, downsampled: points.length < stored.length })
  }
  const rows = trades && blockTrades(trades).map(tradeView)
  const written = { equity: curve, trades: rows && answerBytes(members.trades, rows) }
  return moving(written, [written.equity?.buffer, written.trades?.buffer].filter((b) => b !== undefined) as ArrayBuffer[])
}

/** A bar's figures in a page's block, in order (a page's bars one after another). */
export const BAR_COLUMNS = ['ts', 'open', 'high', 'low', 'close', 'volume'] as const

export interface BarsPagePayload {
  /** The page's bars, BAR_COLUMNS each, moved here. */
  block: Float64Array
  /** The schema of the answer's `bars` member. */
  bars: AnswerSchema
}

/** A page of a dataset's bars written: on the loop for a small page (src/trading/readback.ts), in a worker for a larger one. */
export function barsPage({ block, bars }: BarsPagePayload): { bars: Uint8Array } {
  const rows = []
  for (let at = 0; at < block.length; at += BAR_COLUMNS.length) {
    const ts = block[at]!
    rows.push({ ts, time: new Date(ts).toISOString(), open: block[at + 1], high: block[at + 2], low: block[at + 3], close: block[at + 4], volume: block[at + 5] })
  }
  const written = { bars: answerBytes(bars, rows) }
  return moving(written, [written.bars.buffer as ArrayBuffer])
}

export interface SimulatePayload extends EngineRun {
  spec: Omit<SimulateSpec, 'shouldStop' | 'onProgress'>
}

export interface WalkForwardPayload {
  bars: Bars
  spec: Omit<WalkForwardSpec, 'shouldStop' | 'onProgress'>
}

export interface GridPayload {
  bars: Bars
  grid: SmaGrid
  options: BacktestOptions
  maximize: keyof Stats
  /** This worker's share of a grid split across the mill (`mergeGridResults` joins the answers); default: all pairs. */
  slice?: GridSlice
}

export interface OverfittingPayload {
  trialBlocks: Float64Array
  blocks: number
  bestReturns: Float64Array | null
}

export interface TradeBandsPayload {
  /** The run's closed trades' returns, as fractions. */
  returns: Float64Array
  startEquity: number
  paths: number
  seed: number
}

/**
 * An import's CSV: a text/csv body's bytes (the body reader's blocks, moved here) or the JSON form's `csv` string. The
 * bytes are decoded here as the body reader decodes a body (UTF-8, a BOM kept for the parser to drop, invalid sequences
 * U+FFFD), so the loop never holds the file as a string.
 */
export interface CsvPayload extends CsvOptions {
  csv: string | Uint8Array[]
}

/** The engines' stop condition: past the soft deadline, or the job was cancelled. */
const stopWhen = (deadline: number, cancelled: () => boolean) => () => cancelled() || Date.now() > deadline

export const tradingTasks = {
  // Parsing a 250k-row CSV held the event loop 2 s; the bars come back as typed arrays (a copy of 48 bytes a bar).
  'trading.csv': ({ csv, ...options }: CsvPayload) => csvOutcome(bodyText(csv), options),
  // One backtest is linear in the bars (milliseconds even for 100k bars): progress is reported at its start and end.
  // The curve and the trades come back written by the answer's schema, in bytes that move to the loop.
  'trading.backtest': ({ bars, strategy, params, options, shown: wanted, members }: BacktestPayload, { progress }: TaskContext) => {
    progress.phase('backtesting')
    progress.advance(0, bars.close.length)
    const { stats, trades, equity, annualization } = runBacktest(bars, strategy, params, options)
    progress.advance(bars.close.length, bars.close.length)
    const total = bars.ts.length
    const kept = wanted.equityPoints === null ? null : downsampleIndices(equity, wanted.equityPoints)
    const points = kept && Array.from(kept, (i) => [bars.ts[i]!, equity[i]!])
    const answer = {
      stats,
      annualization,
      equity: points && answerBytes(members.equity, { points, total_points: total, downsampled: points.length < total }),
      trades: wanted.trades ? answerBytes(members.trades, trades.slice(0, INLINE_TRADES_MAX).map((t) => tradeView(engineTrade(t)))) : null,
      tradesTotal: trades.length,
      storedEquity: wanted.storedEquityPoints === null ? null : downsample(bars.ts, equity, wanted.storedEquityPoints),
      kept: wanted.keep ? { trades: tradeBlock(trades), equity: equityChunks(bars.ts, equity), monthly: monthlyReturns(bars.ts, equity) } : null,
    }
    return moving(answer, [answer.equity?.buffer, answer.trades?.buffer, answer.kept?.trades.buffer].filter((b) => b !== undefined) as ArrayBuffer[])
  },
  // A stored run's curve and its first 1,000 trades, read back (GET /api/v11/runs/{id}): written here past a few KiB.
  'trading.runMembers': runMembers,
  // A dataset's page of bars (GET /api/v11/datasets/{ref}): written here past a few KiB.
  'trading.barsPage': barsPage,
  'trading.simulate': ({ bars, strategy, params, options, spec }: SimulatePayload, { deadline, progress, cancelled }: TaskContext) => {
    progress.phase('simulating')
    progress.advance(0, spec.paths)
    return simulate(bars, strategy, params, options, {
      ...spec,
      shouldStop: stopWhen(deadline, cancelled),
      onProgress: (done, total) => progress.advance(done, total),
    })
  },
  'trading.walkForward': ({ bars, spec }: WalkForwardPayload, { deadline, progress, cancelled }: TaskContext) => {
    progress.phase('searching')
    return walkForward(bars, {
      ...spec,
      shouldStop: stopWhen(deadline, cancelled),
      onProgress: ({ configsDone, configs, foldsDone, folds }) => {
        progress.advance(configsDone, configs)
        progress.counter('configs_done', configsDone)
        progress.counter('configs_total', configs)
        progress.counter('folds_done', foldsDone)
        progress.counter('folds_total', folds)
      },
    })
  },
  'trading.tradeBands': ({ returns, startEquity, paths, seed }: TradeBandsPayload, { deadline, cancelled }: TaskContext) =>
    tradeBands(returns, startEquity, paths, seed, stopWhen(deadline, cancelled)),
  'trading.overfitting': ({ trialBlocks, blocks, bestReturns }: OverfittingPayload) => searchOverfitting(trialBlocks, blocks, bestReturns),
  'trading.inSampleGrid': ({ bars, grid, options, maximize, slice }: GridPayload, { deadline, progress, cancelled }: TaskContext) => {
    const all = gridPairCount(grid)
    const pairs = slice ? Math.min(slice.to, all) - Math.min(slice.from, all) : all
    progress.phase('searching')
    progress.advance(0, pairs)
    return inSampleGrid(bars, grid, options, maximize, stopWhen(deadline, cancelled), (done) => progress.advance(done, pairs), slice)
  },
} satisfies TaskTable
