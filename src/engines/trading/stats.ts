// Backtest statistics with the definitions of backtesting.py 0.6.6 `_stats.compute_stats` (SPEC §3.2, keys of §6).
import type { Stats, Trade } from './types.js'

const DAY_MS = 86_400_000

/**
 * `'0.6.6'` (default): CAGR years = calendar days / 365.25 and the daily-return series without its leading NaN
 * (kernc/backtesting.py PR #1346, "Fix CAGR and annualized return calculations").
 * `'0.6-pre-1346'`: years = days / annual trading days and the leading NaN counted as a 0 return in the geometric
 * mean — the definition behind the figures asserted in the 0.6.x test suite; kept so those figures stay checkable.
 */
export type StatsConvention = '0.6.6' | '0.6-pre-1346'

export interface StatsInput {
  ts: Float64Array
  close: Float64Array
  /** Equity at each bar's close, warm-up included. */
  equity: Float64Array
  /** Closed trades only (open trades are excluded from the statistics, as in the reference). */
  trades: readonly Trade[]
  /** The slowest indicator's first defined bar: buy & hold is measured from its close. */
  firstTradingBar: number
  convention?: StatsConvention | undefined
  /**
   * Periods in a year, stated by the caller: the annualised figures then use per-bar returns and this many periods,
   * instead of the reference's day (week, month, year) returns and 252 / 365 / 52 / 12 / 1.
   */
  periodsPerYear?: number | undefined
}

/** How a set of annualised figures was annualised: the periods counted in a year and how that number was found. */
export interface Annualization {
  periods_per_year: number
  basis: string
}

export const STATS_KEYS: readonly (keyof Stats)[] = [
  'start', 'end', 'duration_days', 'exposure_pct', 'equity_final', 'equity_peak', 'commissions', 'return_pct',
  'buy_hold_return_pct', 'return_ann_pct', 'volatility_ann_pct', 'cagr_pct', 'sharpe_ratio', 'sortino_ratio',
  'calmar_ratio', 'alpha_pct', 'beta', 'max_drawdown_pct', 'avg_drawdown_pct', 'max_drawdown_duration_days',
  'avg_drawdown_duration_days', 'trades', 'win_rate_pct', 'best_trade_pct', 'worst_trade_pct', 'avg_trade_pct',
  'max_trade_duration_days', 'avg_trade_duration_days', 'profit_factor', 'expectancy_pct', 'sqn', 'kelly_criterion',
]

/**
 * Every statistic, as backtesting.py defines it (non-finite results, e.g. a ratio over zero, become null):
 * - start, end: first and last bar time (epoch ms); duration_days: end − start in days.
 * - exposure_pct: share of bars from a closed trade's entry bar to its exit bar inclusive (bar count, not time).
 * - equity_final, equity_peak: last and highest equity; commissions: Σ commissions of closed trades.
 * - return_pct: (equity_last − equity_first) / equity_first · 100.
 * - buy_hold_return_pct: (close_last − close_w) / close_w · 100, w = the first trading bar (indicator warm-up).
 * - day returns r: equity's last value per calendar day (per week / month / year for weekly, monthly, yearly bars),
 *   percent change; D = 252 annual periods, or 365 when more than 60 % of 2/7 of the bars fall on weekends
 *   (52, 12, 1 for weekly, monthly, yearly bars); g = geometric mean of r (0 when any 1 + r ≤ 0).
 * - return_ann_pct: ((1 + g)^D − 1) · 100.
 * - volatility_ann_pct: √((var(r, ddof 1) + (1 + g)²)^D − (1 + g)^(2D)) · 100 (compounded form).
 * - cagr_pct: ((equity_last / equity_first)^(1/years) − 1) · 100, years = days / 365.25.
 * - sharpe_ratio: return_ann_pct / volatility_ann_pct (risk-free 0).
 * - sortino_ratio: ((1 + g)^D − 1) / (√mean(min(r, 0)²) · √D).
 * - calmar_ratio: ((1 + g)^D − 1) / max drawdown (as a fraction).
 * - beta: cov(log equity returns, log close returns) / var(log close returns), per bar, ddof 1;
 *   alpha_pct: return_pct − beta · buy_hold_return_pct (Jensen, risk-free 0).
 * - drawdown dd = 1 − equity / running peak; max_drawdown_pct = −max dd · 100; a drawdown period runs between two
 *   bars at dd = 0 (or the last bar) that are more than one bar apart; avg_drawdown_pct = −mean of the periods'
 *   deepest dd · 100; max/avg_drawdown_duration_days: longest / mean period length in time.
 * - trades: closed trades; win_rate_pct: share with PnL > 0; best/worst_trade_pct: max/min return % of a trade;
 *   avg_trade_pct: geometric mean of trade returns · 100; max/avg_trade_duration_days: exit time − entry time.
 *   Durations are rounded up to the resolution of the bars' median spacing (whole days for daily bars).
 * - profit_factor: Σ positive trade returns / |Σ negative trade returns|; expectancy_pct: mean trade return · 100.
 * - sqn: √trades · mean(PnL) / std(PnL, ddof 1).
 * - kelly_criterion: W − (1 − W) / (mean winning PnL / mean losing |PnL|), W the win rate.
 */
export function computeStats(input: StatsInput): Stats {
  const { ts, close, equity, trades, firstTradingBar } = input
  const convention = input.convention ?? '0.6.6'
  const n = equity.length
  if (n === 0 || ts.length !== n || close.length !== n) throw new RangeError('stats need equal, non-empty series')

  const roundUp = (ms: number): number | null => {
    if (!Number.isFinite(ms)) return null
    const unit = resolutionOf(calendarOf(ts).periodMs)
    return (Math.ceil(ms / unit - 1e-12) * unit) / DAY_MS
  }

  const { maxDd, sawDd, periods, peak: equityPeak } = positiveDrawdowns(ts, equity) ?? drawdowns(ts, equity)

  // exposure: bars from each closed trade's entry to its exit, inclusive, counted once
  let heldBars = 0
  let covered = -1
  let commissions = 0
  for (const t of [...trades].sort((a, b) => a.entryBar - b.entryBar)) {
    const to = Math.min(t.exitBar ?? n - 1, n - 1)
    const from = Math.max(t.entryBar, covered + 1)
    if (to >= from) heldBars += to - from + 1
    if (to > covered) covered = to
    commissions += t.commissions
  }

  const equityFirst = equity[0]!
  const equityLast = equity[n - 1]!
  const returnPct = ((equityLast - equityFirst) / equityFirst) * 100
  const w = Math.min(Math.max(0, firstTradingBar), n - 1)
  const buyHold = ((close[n - 1]! - close[w]!) / close[w]!) * 100

  // annualised figures from day (or week / month / year) returns, or per-bar returns when the caller states the periods
  const cal = calendarOf(ts)
  const stated = input.periodsPerYear
  const annualDays = stated ?? cal.annualDays
  const periodReturns = stated === undefined ? bucketReturns(equity, cal.bucketEnds) : barReturnsOf(equity)
  const geo = convention === '0.6.6'
    ? geometricMean(periodReturns, 0)
    : geometricMean(periodReturns, 1) // the leading NaN, counted as a zero return
  const annualReturn = (1 + geo) ** annualDays - 1
  const variance = sampleVariance(periodReturns)
  const volatility = Math.sqrt((variance + (1 + geo) ** 2) ** annualDays - (1 + geo) ** (2 * annualDays)) * 100
  const durationMs = ts[n - 1]! - ts[0]!
  const years = durationDays(durationMs) / (convention === '0.6.6' ? 365.25 : annualDays)
  const cagr = years ? ((equityLast / equityFirst) ** (1 / years) - 1) * 100 : NaN
  const sharpe = (annualReturn * 100) / (volatility || NaN)
  let downside = 0
  for (let i = 0; i < periodReturns.length; i++) downside += Math.min(periodReturns[i]!, 0) ** 2
  const sortino = annualReturn / (Math.sqrt(downside / periodReturns.length) * Math.sqrt(annualDays))
  const calmar = annualReturn / (maxDd || NaN)
  const beta = betaOf(equity, close)
  const alpha = returnPct - beta * buyHold

  // trades
  const count = trades.length
  const pls = trades.map((t) => t.pnl)
  const rets = trades.map((t) => t.returnPct)
  const wins = pls.filter((v) => v > 0)
  const losses = pls.filter((v) => v < 0)
  const winRate = count ? wins.length / count : NaN
  const durations = trades.map((t) => (t.exitTime ?? NaN) - t.entryTime)
  const posSum = sum(rets.filter((r) => r > 0))
  const negSum = Math.abs(sum(rets.filter((r) => r < 0)))
  const plStd = Math.sqrt(sampleVariance(pls))

  return {
    start: ts[0]!,
    end: ts[n - 1]!,
    duration_days: durationMs / DAY_MS,
    exposure_pct: (heldBars / n) * 100,
    equity_final: equityLast,
    equity_peak: equityPeak,
    commissions,
    return_pct: returnPct,
    buy_hold_return_pct: buyHold,
    return_ann_pct: finite(annualReturn * 100),
    volatility_ann_pct: finite(volatility),
    cagr_pct: finite(cagr),
    sharpe_ratio: finite(sharpe),
    sortino_ratio: finite(sortino),
    calmar_ratio: finite(calmar),
    alpha_pct: finite(alpha),
    beta: finite(beta),
    max_drawdown_pct: sawDd ? -maxDd * 100 : null,
    avg_drawdown_pct: periods.length ? finite(-mean(periods.map((p) => p.peak)) * 100) : null,
    max_drawdown_duration_days: periods.length ? roundUp(maxOf(periods.map((p) => p.duration))) : null,
    avg_drawdown_duration_days: periods.length ? roundUp(mean(periods.map((p) => p.duration))) : null,
    trades: count,
    win_rate_pct: finite(winRate * 100),
    best_trade_pct: count ? finite(maxOf(rets) * 100) : null,
    worst_trade_pct: count ? finite(-maxOf(rets.map((r) => -r)) * 100) : null,
    avg_trade_pct: count ? finite(geometricMean(rets, 0) * 100) : null,
    max_trade_duration_days: count ? roundUp(maxOf(durations)) : null,
    avg_trade_duration_days: count ? roundUp(mean(durations)) : null,
    profit_factor: finite(posSum / (negSum || NaN)),
    expectancy_pct: count ? finite(mean(rets) * 100) : null,
    sqn: finite((Math.sqrt(count) * mean(pls)) / (plStd || NaN)),
    kelly_criterion: finite(winRate - (1 - winRate) / (mean(wins) / -mean(losses))),
  }
}

/**
 * How computeStats annualises these bars: the reference's calendar periods (252 weekdays or 365 days of day returns;
 * 52, 12, 1 for weekly, monthly, yearly bars), or the caller's periods of per-bar returns.
 */
export function statsAnnualization(ts: Float64Array, periodsPerYear?: number): Annualization {
  const bars = barLabel(ts)
  if (periodsPerYear !== undefined) return { periods_per_year: periodsPerYear, basis: `stated in the request; per-bar returns of ${bars} bars` }
  const cal = calendarOf(ts)
  const freqDays = Math.floor(cal.periodMs / DAY_MS)
  if (freqDays === 7) return { periods_per_year: 52, basis: `weekly returns of ${bars} bars: 52 a year` }
  if (freqDays === 31) return { periods_per_year: 12, basis: `monthly returns of ${bars} bars: 12 a year` }
  if (freqDays === 365) return { periods_per_year: 1, basis: `yearly returns of ${bars} bars: 1 a year` }
  const days = cal.annualDays === 365 ? 'bars on weekends: 365 days a year' : 'weekdays only: 252 trading days a year'
  const resampled = cal.periodMs < DAY_MS ? `${bars} bars resampled to days (the equity's last value each UTC day)` : `${bars} bars`
  return { periods_per_year: cal.annualDays, basis: `daily returns of ${resampled}; ${days}` }
}

/** How barsPerYear annualises per-bar figures (walk-forward scores, Monte Carlo Sharpe), or the caller's periods. */
export function barAnnualization(ts: Float64Array, periodsPerYear?: number): Annualization {
  const bars = barLabel(ts)
  if (periodsPerYear !== undefined) return { periods_per_year: periodsPerYear, basis: `stated in the request; per-bar returns of ${bars} bars` }
  const perDay = Math.max(1, DAY_MS / medianSpacing(ts))
  const days = hasWeekends(ts) ? '365 days (bars on weekends)' : '252 trading days (weekdays only)'
  return {
    periods_per_year: barsPerYear(ts),
    basis: perDay > 1 ? `per-bar returns of ${bars} bars: ${round6(perDay)} bars a day × ${days}` : `per-bar returns of ${bars} bars: ${days}`,
  }
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6

/** The bars' median spacing as a timeframe label (15m, 1h, 1d…). */
function barLabel(ts: Float64Array): string {
  const ms = medianSpacing(ts)
  for (const [unit, size] of [['w', 7 * DAY_MS], ['d', DAY_MS], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}

function barReturnsOf(equity: Float64Array): Float64Array {
  const out = new Float64Array(Math.max(0, equity.length - 1))
  for (let i = 1; i < equity.length; i++) out[i - 1] = equity[i]! / equity[i - 1]! - 1
  return out
}

/**
 * Bars per year for per-bar annualisation elsewhere (Monte Carlo, walk-forward): the reference's annual periods
 * (252, or 365 with weekends) times bars per day from the median spacing (at least one bar a day).
 */
export function barsPerYear(ts: Float64Array): number {
  const spacing = medianSpacing(ts)
  return (hasWeekends(ts) ? 365 : 252) * Math.max(1, DAY_MS / spacing)
}

interface Drawdowns {
  maxDd: number
  sawDd: boolean
  periods: DrawdownPeriod[]
  peak: number
}

/**
 * Drawdowns and their periods, in one pass: dd = 1 − equity / running peak; a period runs between consecutive
 * bars at dd = 0 (or the last bar) that are more than one bar apart; its depth is the largest dd within it.
 */
export function drawdowns(ts: Float64Array, equity: Float64Array): Drawdowns {
  const n = equity.length
  let peak = -Infinity
  let maxDd = 0
  let sawDd = false
  let lastZero = -1
  let segmentMax = 0
  const periods: DrawdownPeriod[] = []
  for (let i = 0; i < n; i++) {
    const e = equity[i]!
    if (e > peak) peak = e
    const d = 1 - e / peak
    if (d === d) {
      if (!sawDd || d > maxDd) maxDd = d
      sawDd = true
    }
    if (d > segmentMax) segmentMax = d
    if (d === 0 || i === n - 1) {
      if (lastZero >= 0 && i > lastZero + 1) periods.push({ duration: ts[i]! - ts[lastZero]!, peak: segmentMax })
      lastZero = i
      segmentMax = d === d ? d : 0
    }
  }
  return { maxDd, sawDd, periods, peak }
}

/**
 * `drawdowns` for an all-positive equity curve (null otherwise), with one division per period instead of one per
 * bar: dd is 0 exactly at equity = peak, the peak stays put within a period, and 1 − e/peak falls as e rises, so
 * a period's depth is 1 − (its lowest equity) / peak — the same number the per-bar maximum finds.
 */
export function positiveDrawdowns(ts: Float64Array, equity: Float64Array): Drawdowns | null {
  const n = equity.length
  let peak = -Infinity
  let maxDd = 0
  let lastZero = -1
  let low = Infinity
  const periods: DrawdownPeriod[] = []
  for (let i = 0; i < n; i++) {
    const e = equity[i]!
    if (!(e > 0 && e < Infinity)) return null
    if (e >= peak) {
      if (lastZero >= 0 && i > lastZero + 1) {
        const depth = 1 - low / peak
        periods.push({ duration: ts[i]! - ts[lastZero]!, peak: depth })
        if (depth > maxDd) maxDd = depth
      }
      peak = e
      lastZero = i
      low = Infinity
    } else if (e < low) {
      low = e
    }
  }
  if (low < Infinity) {
    // the period still open at the last bar
    const depth = 1 - low / peak
    if (lastZero >= 0 && n - 1 > lastZero + 1) periods.push({ duration: ts[n - 1]! - ts[lastZero]!, peak: depth })
    if (depth > maxDd) maxDd = depth
  }
  return { maxDd, sawDd: n > 0, periods, peak }
}

interface DrawdownPeriod {
  duration: number
  peak: number
}

function bucketReturns(equity: Float64Array, bucketEnds: Int32Array): Float64Array {
  const out = new Float64Array(Math.max(0, bucketEnds.length - 1))
  for (let k = 1; k < bucketEnds.length; k++) out[k - 1] = equity[bucketEnds[k]!]! / equity[bucketEnds[k - 1]!]! - 1
  return out
}

export interface Calendar {
  periodMs: number
  annualDays: number
  /** Index of the last bar of each day (week, month, year) bucket. */
  bucketEnds: Int32Array
}

const calendars = new WeakMap<Float64Array, Calendar>()

/** What the statistics need from the timestamps alone, computed once per timestamp array (grids reuse it). */
export function calendarOf(ts: Float64Array): Calendar {
  let cal = calendars.get(ts)
  if (cal) return cal
  const periodMs = medianSpacing(ts)
  const freqDays = Math.floor(periodMs / DAY_MS)
  const annualDays = freqDays === 7 ? 52 : freqDays === 31 ? 12 : freqDays === 365 ? 1 : hasWeekends(ts) ? 365 : 252
  const bucketOf = freqDays === 7 ? weekBucket : freqDays === 31 ? monthBucket : freqDays === 365 ? yearBucket : dayBucket
  const ends: number[] = []
  let bucket = NaN
  for (let i = 0; i < ts.length; i++) {
    const b = bucketOf(ts[i]!)
    if (b !== bucket) {
      ends.push(i)
      bucket = b
    } else {
      ends[ends.length - 1] = i
    }
  }
  cal = { periodMs, annualDays, bucketEnds: Int32Array.from(ends) }
  calendars.set(ts, cal)
  return cal
}

const dayBucket = (t: number): number => Math.floor(t / DAY_MS)
/** pandas 'W' = weeks ending on Sunday; epoch day 0 was a Thursday. */
const weekBucket = (t: number): number => Math.floor((Math.floor(t / DAY_MS) + 3) / 7)
const monthBucket = (t: number): number => {
  const d = new Date(t)
  return d.getUTCFullYear() * 12 + d.getUTCMonth()
}
const yearBucket = (t: number): number => new Date(t).getUTCFullYear()

/** True when more than 60 % of the 2/7 share expected of a 7-day calendar falls on Saturdays and Sundays. */
function hasWeekends(ts: Float64Array): boolean {
  let weekend = 0
  for (let i = 0; i < ts.length; i++) {
    const dow = ((((Math.floor(ts[i]! / DAY_MS) + 3) % 7) + 7) % 7) // Monday = 0
    if (dow >= 5) weekend++
  }
  return weekend / ts.length > (2 / 7) * 0.6
}

/** Median spacing of the last 100 bars (the reference's `_data_period`). */
function medianSpacing(ts: Float64Array): number {
  const from = Math.max(0, ts.length - 100)
  const diffs: number[] = []
  for (let i = from + 1; i < ts.length; i++) diffs.push(ts[i]! - ts[i - 1]!)
  if (!diffs.length) return DAY_MS
  diffs.sort((a, b) => a - b)
  const m = diffs.length >> 1
  return diffs.length % 2 ? diffs[m]! : (diffs[m - 1]! + diffs[m]!) / 2
}

/** The finest non-zero unit of a time span (pandas `Timedelta.resolution_string`), in ms. */
function resolutionOf(ms: number): number {
  // the finest unit with a non-zero component is the largest unit that divides the span
  for (const unit of [DAY_MS, 3_600_000, 60_000, 1000]) if (ms % unit === 0) return unit
  return 1
}

/** pandas `Timedelta.days + Timedelta.seconds / 86400` (sub-second parts dropped). */
function durationDays(ms: number): number {
  const days = Math.floor(ms / DAY_MS)
  const seconds = Math.floor((ms - days * DAY_MS) / 1000)
  return days + seconds / 86400
}

/** exp(mean(log(1 + r))) − 1 over `r` plus `zeros` zero returns; 0 when any 1 + r ≤ 0; NaN when empty. */
function geometricMean(returns: ArrayLike<number>, zeros: number): number {
  let logSum = 0
  for (let i = 0; i < returns.length; i++) {
    const r = returns[i]!
    const g = 1 + (r === r ? r : 0)
    if (g <= 0) return 0
    logSum += Math.log(g)
  }
  const len = returns.length + zeros
  return Math.exp(logSum / (len || NaN)) - 1
}

const marketLogReturns = new WeakMap<Float64Array, { y: Float64Array; mean: number; ss: number }>()

/** Per-bar log returns of the closes with their mean and sum of squared deviations, once per close array. */
function marketOf(close: Float64Array): { y: Float64Array; mean: number; ss: number } {
  let m = marketLogReturns.get(close)
  if (m) return m
  const y = new Float64Array(close.length - 1)
  for (let i = 1; i < close.length; i++) y[i - 1] = Math.log(close[i]! / close[i - 1]!)
  const my = mean(y)
  let ss = 0
  for (let i = 0; i < y.length; i++) ss += (y[i]! - my) ** 2
  m = { y, mean: my, ss }
  marketLogReturns.set(close, m)
  return m
}

function betaOf(equity: Float64Array, close: Float64Array): number {
  const n = equity.length
  if (n < 3) return NaN
  const { y, mean: my, ss: cyy } = marketOf(close)
  // cov(x, y) = Σ (x − x̄)(y − ȳ) = Σ x (y − ȳ): no need to centre x, and flat equity (x = 0) costs no log
  let cxy = 0
  let xSum = 0
  for (let i = 1; i < n; i++) {
    const a = equity[i]!
    const b = equity[i - 1]!
    if (a === b) continue
    const x = Math.log(a / b)
    xSum += x
    cxy += x * (y[i - 1]! - my)
  }
  if (!Number.isFinite(xSum)) return NaN
  return cxy / (n - 2) / (cyy / (n - 2))
}

/** Largest value, NaN when any is NaN (like numpy's max); a loop, since spreading a long array overflows the stack. */
function maxOf(values: readonly number[]): number {
  let m = -Infinity
  for (const v of values) {
    if (v !== v) return NaN
    if (v > m) m = v
  }
  return m
}

function sum(values: ArrayLike<number>): number {
  let s = 0
  for (let i = 0; i < values.length; i++) s += values[i]!
  return s
}

function mean(values: ArrayLike<number>): number {
  return values.length ? sum(values) / values.length : NaN
}

function sampleVariance(values: ArrayLike<number>): number {
  const n = values.length
  if (n < 2) return NaN
  const m = mean(values)
  let ss = 0
  for (let i = 0; i < n; i++) ss += (values[i]! - m) ** 2
  return ss / (n - 1)
}

function finite(v: number): number | null {
  return Number.isFinite(v) ? v : null
}
