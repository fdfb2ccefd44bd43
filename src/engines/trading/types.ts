// Shared types of the pure trading engine: bars, options, trades, statistics, results.

/** OHLCV bars as parallel typed arrays; `ts` is epoch milliseconds, strictly increasing. */
export interface Bars {
  ts: Float64Array
  open: Float64Array
  high: Float64Array
  low: Float64Array
  close: Float64Array
  volume: Float64Array
}

export type StrategyName =
  | 'sma_cross'
  | 'ema_cross'
  | 'rsi_reversion'
  | 'donchian_breakout'
  | 'bollinger_reversion'
  | 'macd'
  | 'buy_and_hold'

export type Signal = 'long' | 'flat' | 'short'

export interface BacktestOptions {
  /** Starting cash (> 0). */
  cash: number
  /** Commission as a fraction of traded value, charged at entry and at exit (e.g. 0.002). */
  commission: number
  /** Bid-ask spread as a fraction: a buy fills at price × (1 + spread), a sell at price × (1 − spread). */
  spread?: number
  /** Extra adverse slippage in basis points, applied like `spread` (added to it). */
  slippageBps?: number
  /** Allow short positions (default false: a short signal means flat). */
  allowShort?: boolean
  /** Close trades still open at the end at the last bar's open, so they count in trade statistics (default false). */
  finalizeTrades?: boolean
  /**
   * Order size. Default: all available cash, whole units.
   * `fraction` in (0, 1): that share of available equity, whole units. `units` ≥ 1: that many units.
   */
  size?: { fraction?: number; units?: number }
  /** Periods in a year for the annualised statistics, per-bar returns (default: the reference's calendar, see stats.ts). */
  periodsPerYear?: number
}

/** One trade. Open trades (at the end, without finalizeTrades) have exit fields null and are marked to the last close. */
export interface Trade {
  /** Signed units: positive long, negative short. */
  size: number
  entryBar: number
  exitBar: number | null
  entryPrice: number
  exitPrice: number | null
  entryTime: number
  exitTime: number | null
  /** size × (exit − entry) − commissions. Open trade: size × (last close − entry), commissions not deducted (as the reference marks it). */
  pnl: number
  /** sign × (exit / entry − 1) − commissions / (|size| × entry), as a fraction (not percent). */
  returnPct: number
  /** Entry plus exit commission; for an open trade the entry commission already paid. */
  commissions: number
}

/** Statistics keyed exactly as SPEC §6; every figure a number or null when undefined (e.g. no trades). */
export interface Stats {
  start: number
  end: number
  duration_days: number
  exposure_pct: number
  equity_final: number
  equity_peak: number
  commissions: number
  return_pct: number
  buy_hold_return_pct: number
  return_ann_pct: number | null
  volatility_ann_pct: number | null
  cagr_pct: number | null
  sharpe_ratio: number | null
  sortino_ratio: number | null
  calmar_ratio: number | null
  alpha_pct: number | null
  beta: number | null
  max_drawdown_pct: number | null
  avg_drawdown_pct: number | null
  max_drawdown_duration_days: number | null
  avg_drawdown_duration_days: number | null
  trades: number
  win_rate_pct: number | null
  best_trade_pct: number | null
  worst_trade_pct: number | null
  avg_trade_pct: number | null
  max_trade_duration_days: number | null
  avg_trade_duration_days: number | null
  profit_factor: number | null
  expectancy_pct: number | null
  sqn: number | null
  kelly_criterion: number | null
}

export interface BacktestResult {
  stats: Stats
  /** How the annualised statistics were annualised. */
  annualization: { periods_per_year: number; basis: string }
  /** Closed trades in exit order, then trades still open at the end. */
  trades: Trade[]
  /** Equity at each bar's close (cash + open trades marked to the close); warm-up bars hold the starting cash. */
  equity: Float64Array
  /** Drawdown at each bar as a fraction ≤ 0: equity / running peak − 1. */
  drawdown: Float64Array
  /** Target position after each bar's close: 1 long, 0 flat, −1 short (what the strategy wants, filled at the next open). */
  positions: Float64Array
  /** Units actually held at each bar's close (signed). */
  units: Float64Array
  /** Cash at each bar's close (equity = cash + Σ open trades' size × close). */
  cash: Float64Array
  /** First bar on which the strategy may act (after the indicators' warm-up). */
  startBar: number
}
