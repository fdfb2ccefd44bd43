// Mill tasks of the trading domain: the pure engine run off the event loop, bars in as typed arrays.
import type { TaskContext, TaskTable } from '../types.js'
import { csvOutcome, gridPairCount, inSampleGrid, runBacktest, simulate, walkForward } from '../../engines/trading/index.js'
import type { GridSlice, SimulateSpec, SmaGrid, WalkForwardSpec } from '../../engines/trading/index.js'
import { downsample, downsampleIndices } from '../../engines/trading/downsample.js'
import type { BacktestOptions, Bars, Stats, StrategyName } from '../../engines/trading/types.js'
import { moving } from '../moving.js'
import { tradeBands } from '../../engines/trading/trade-bands.js'
import { searchOverfitting } from '../../engines/trading/overfitting.js'
import { equityChunks, monthlyReturns, tradeBlock } from '../../engines/trading/run-series.js'
import { pointsBytes, tradesBytes } from './trading-text.js'
import { INLINE_TRADES_MAX } from '../../engines/trading/answer-caps.js'

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

/** The engines' stop condition: past the soft deadline, or the job was cancelled. */
const stopWhen = (deadline: number, cancelled: () => boolean) => () => cancelled() || Date.now() > deadline

export const tradingTasks = {
  // Parsing a 250k-row CSV held the event loop 2 s; the bars come back as typed arrays (a copy of 48 bytes a bar).
  'trading.csv': ({ text, maxRows }: { text: string; maxRows?: number }) => csvOutcome(text, maxRows === undefined ? {} : { maxRows }),
  // One backtest is linear in the bars (milliseconds even for 100k bars): progress is reported at its start and end.
  // The curve and the trades come back as JSON text in bytes that move to the loop, not as arrays the loop builds.
  'trading.backtest': ({ bars, strategy, params, options, shown }: BacktestPayload, { progress }: TaskContext) => {
    progress.phase('backtesting')
    progress.advance(0, bars.close.length)
    const { stats, trades, equity, annualization } = runBacktest(bars, strategy, params, options)
    progress.advance(bars.close.length, bars.close.length)
    const kept = shown.equityPoints === null ? null : downsampleIndices(equity, shown.equityPoints)
    const answer = {
      stats,
      annualization,
      equity: kept && { text: pointsBytes(bars.ts, equity, kept), points: kept.length },
      trades: shown.trades ? tradesBytes(trades.slice(0, INLINE_TRADES_MAX)) : null,
      tradesTotal: trades.length,
      storedEquity: shown.storedEquityPoints === null ? null : downsample(bars.ts, equity, shown.storedEquityPoints),
      kept: shown.keep ? { trades: tradeBlock(trades), equity: equityChunks(bars.ts, equity), monthly: monthlyReturns(bars.ts, equity) } : null,
    }
    return moving(answer, [answer.equity?.text.buffer, answer.trades?.buffer, answer.kept?.trades.buffer].filter((b) => b !== undefined) as ArrayBuffer[])
  },
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
