// Mill tasks of the trading domain: the pure engine run off the event loop, bars in as typed arrays.
import type { MillTask } from '../types.js'
import { inSampleGrid, runBacktest, simulate, walkForward } from '../../engines/trading/index.js'
import type { SimulateSpec, SmaGrid, WalkForwardSpec } from '../../engines/trading/index.js'
import type { BacktestOptions, Bars, Stats, StrategyName } from '../../engines/trading/types.js'

export interface BacktestPayload {
  bars: Bars
  strategy: StrategyName
  params: Record<string, number>
  options: BacktestOptions
}

export interface SimulatePayload extends BacktestPayload {
  spec: Omit<SimulateSpec, 'shouldStop'>
}

export interface WalkForwardPayload {
  bars: Bars
  spec: Omit<WalkForwardSpec, 'shouldStop'>
}

export interface GridPayload {
  bars: Bars
  grid: SmaGrid
  options: BacktestOptions
  maximize: keyof Stats
}

const pastDeadline = (deadline: number) => () => Date.now() > deadline

export const tradingTasks: Record<string, MillTask> = {
  // One backtest is linear in the bars (milliseconds even for 100k bars): no need to check the deadline inside.
  'trading.backtest': (payload) => {
    const { bars, strategy, params, options } = payload as BacktestPayload
    const result = runBacktest(bars, strategy, params, options)
    return { stats: result.stats, trades: result.trades, equity: result.equity, startBar: result.startBar }
  },
  'trading.simulate': (payload, { deadline }) => {
    const { bars, strategy, params, options, spec } = payload as SimulatePayload
    return simulate(bars, strategy, params, options, { ...spec, shouldStop: pastDeadline(deadline) })
  },
  'trading.walkForward': (payload, { deadline }) => {
    const { bars, spec } = payload as WalkForwardPayload
    return walkForward(bars, { ...spec, shouldStop: pastDeadline(deadline) })
  },
  'trading.inSampleGrid': (payload, { deadline }) => {
    const { bars, grid, options, maximize } = payload as GridPayload
    return inSampleGrid(bars, grid, options, maximize, pastDeadline(deadline))
  },
}
