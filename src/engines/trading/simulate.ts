// Monte Carlo: the strategy run over many seeded future paths (block bootstrap of past bars, or GBM).
import type { BacktestOptions, Bars, StrategyName } from './types.js'
import { createRng, type Rng } from './prng.js'
import { executeEvents } from './execution.js'
import { parseStrategyParams, strategyEvents } from './strategies.js'
import { barAnnualization } from './stats.js'
import { nextBar } from './synthetic.js'

export interface SimulateSpec {
  paths: number
  /** Bars simulated after the last real bar. */
  horizon: number
  method: 'bootstrap' | 'gbm'
  /** Bootstrap block length in bars (default 1: independent bars; longer blocks keep volatility clusters). */
  block?: number
  seed: number
  shouldStop?: () => boolean
  /** Called after each path with the paths done (optional; jobs show it as progress). */
  onProgress?: (pathsDone: number, paths: number) => void
}

/** Percentiles by linear interpolation (numpy's default), plus mean, min and max. */
export interface Distribution {
  p5: number
  p25: number
  p50: number
  p75: number
  p95: number
  mean: number
  min: number
  max: number
}

export interface MonteCarloResult {
  method: 'bootstrap' | 'gbm'
  /** Paths completed (fewer than asked when stopped early). */
  paths: number
  horizon: number
  block: number
  seed: number
  complete: boolean
  /** Real bars run before each path so indicators and the open position carry into the horizon. */
  history_bars: number
  bars_per_year: number
  /** How the Sharpe ratios were annualised (bars_per_year and its basis). */
  annualization: { periods_per_year: number; basis: string }
  /** Over the horizon only: equity at its end / equity at its start − 1, in %. */
  return_pct: Distribution
  /** Deepest fall from a running peak within the horizon, in % (≤ 0). */
  max_drawdown_pct: Distribution
  /** Per-bar mean / standard deviation of equity returns in the horizon × √bars_per_year (paths with no variation: 0). */
  sharpe: Distribution
  probability_of_loss: number
  /** Loss not exceeded in 95 % (99 %) of paths, as a positive %; CVaR is the mean loss beyond it. */
  var95_pct: number
  cvar95_pct: number
  var99_pct: number
  cvar99_pct: number
  /** The per-bar log-return model the GBM paths use (also reported for bootstrap, for reference). */
  model: { mu_per_bar: number; sigma_per_bar: number }
}

/**
 * For each path: future bars are generated after the last real bar — `bootstrap` copies blocks of past bars
 * (each bar's open/high/low/close relative to its previous close, so every bar stays a valid OHLC bar), `gbm`
 * draws log returns with the history's per-bar mean and volatility — then the strategy runs over a tail of real
 * history followed by the path, and the horizon part of its equity curve is measured. Same inputs and seed,
 * same result.
 */
export function simulate(
  bars: Bars,
  strategy: StrategyName,
  params: Record<string, unknown>,
  options: BacktestOptions,
  spec: SimulateSpec,
): MonteCarloResult {
  const n = bars.close.length
  if (n < 3) throw new RangeError('simulation needs at least 3 bars of history')
  if (!Number.isInteger(spec.paths) || spec.paths < 1) throw new RangeError(`paths must be a positive integer, got ${spec.paths}`)
  if (!Number.isInteger(spec.horizon) || spec.horizon < 2) throw new RangeError(`horizon must be an integer ≥ 2, got ${spec.horizon}`)
  const block = Math.max(1, Math.min(Math.floor(spec.block ?? 1), n - 1))
  const p = parseStrategyParams(strategy, params)
  const warmup = strategyEvents(bars, strategy, p).warmup
  const historyBars = Math.min(n, Math.max(50, 3 * (warmup + 1)))
  const from = n - historyBars
  const total = historyBars + spec.horizon
  const annualization = barAnnualization(bars.ts, options.periodsPerYear)
  const perYear = annualization.periods_per_year
  const step = medianStep(bars.ts)

  // relative bar shapes of the history (bar 1..n−1 against the previous close)
  const rel = n - 1
  const relOpen = new Float64Array(rel), relHigh = new Float64Array(rel), relLow = new Float64Array(rel), relClose = new Float64Array(rel)
  let mu = 0
  for (let i = 1; i < n; i++) {
    const pc = bars.close[i - 1]!
    relOpen[i - 1] = bars.open[i]! / pc
    relHigh[i - 1] = bars.high[i]! / pc
    relLow[i - 1] = bars.low[i]! / pc
    relClose[i - 1] = bars.close[i]! / pc
    mu += Math.log(relClose[i - 1]!)
  }
  mu /= rel
  let ss = 0
  for (let i = 0; i < rel; i++) ss += (Math.log(relClose[i]!) - mu) ** 2
  const sigma = rel > 1 ? Math.sqrt(ss / (rel - 1)) : 0

  const path: Bars = {
    ts: new Float64Array(total), open: new Float64Array(total), high: new Float64Array(total),
    low: new Float64Array(total), close: new Float64Array(total), volume: new Float64Array(total),
  }
  for (let i = 0; i < historyBars; i++) {
    path.ts[i] = bars.ts[from + i]!
    path.open[i] = bars.open[from + i]!
    path.high[i] = bars.high[from + i]!
    path.low[i] = bars.low[from + i]!
    path.close[i] = bars.close[from + i]!
    path.volume[i] = bars.volume[from + i]!
  }
  const lastTs = bars.ts[n - 1]!
  for (let k = 0; k < spec.horizon; k++) path.ts[historyBars + k] = lastTs + (k + 1) * step

  const rng = createRng(spec.seed)
  const returns: number[] = []
  const drawdowns: number[] = []
  const sharpes: number[] = []
  let complete = true
  for (let pathNo = 0; pathNo < spec.paths; pathNo++) {
    if (spec.shouldStop?.()) {
      complete = false
      break
    }
    if (spec.method === 'bootstrap') fillBootstrap(rng, path, historyBars, block, relOpen, relHigh, relLow, relClose)
    else fillGbm(rng, path, historyBars, mu, sigma)
    const run = executeEvents(path, strategyEvents(path, strategy, p), options)
    const m = measureHorizon(run.equity, historyBars - 1, perYear)
    returns.push(m.returnPct)
    drawdowns.push(m.maxDrawdownPct)
    sharpes.push(m.sharpe)
    spec.onProgress?.(returns.length, spec.paths)
  }

  const sorted = [...returns].sort((a, b) => a - b)
  const tail = (q: number): { varPct: number; cvarPct: number } => {
    if (!sorted.length) return { varPct: NaN, cvarPct: NaN }
    const cut = quantile(sorted, q)
    const beyond = sorted.filter((r) => r <= cut)
    return { varPct: -cut, cvarPct: -(beyond.reduce((s, v) => s + v, 0) / beyond.length) }
  }
  const t95 = tail(0.05)
  const t99 = tail(0.01)
  return {
    method: spec.method,
    paths: returns.length,
    horizon: spec.horizon,
    block,
    seed: spec.seed,
    complete,
    history_bars: historyBars,
    bars_per_year: perYear,
    annualization,
    return_pct: distribution(returns),
    max_drawdown_pct: distribution(drawdowns),
    sharpe: distribution(sharpes),
    probability_of_loss: returns.length ? returns.filter((r) => r < 0).length / returns.length : NaN,
    var95_pct: t95.varPct,
    cvar95_pct: t95.cvarPct,
    var99_pct: t99.varPct,
    cvar99_pct: t99.cvarPct,
    model: { mu_per_bar: mu, sigma_per_bar: sigma },
  }
}

function fillBootstrap(
  rng: Rng, path: Bars, from: number, block: number,
  relOpen: Float64Array, relHigh: Float64Array, relLow: Float64Array, relClose: Float64Array,
): void {
  const rel = relClose.length
  let prevClose = path.close[from - 1]!
  let src = 0
  let left = 0
  for (let i = from; i < path.close.length; i++) {
    if (left === 0) {
      src = rng.int(rel - block + 1)
      left = block
    }
    path.open[i] = prevClose * relOpen[src]!
    path.high[i] = prevClose * relHigh[src]!
    path.low[i] = prevClose * relLow[src]!
    path.close[i] = prevClose * relClose[src]!
    path.volume[i] = 0
    prevClose = path.close[i]!
    src++
    left--
  }
}

function fillGbm(rng: Rng, path: Bars, from: number, mu: number, sigma: number): void {
  // nextBar draws (drift − σ²/2)·dt + σ·√dt·Z; with dt = 1 and drift = μ + σ²/2 the close follows the fitted model
  let prevClose = path.close[from - 1]!
  for (let i = from; i < path.close.length; i++) {
    const bar = nextBar(rng, prevClose, mu + (sigma * sigma) / 2, sigma, 1)
    path.open[i] = bar.open
    path.high[i] = bar.high
    path.low[i] = bar.low
    path.close[i] = bar.close
    path.volume[i] = 0
    prevClose = bar.close
  }
}

function measureHorizon(equity: Float64Array, from: number, perYear: number): { returnPct: number; maxDrawdownPct: number; sharpe: number } {
  const start = equity[from]!
  let peak = start
  let maxDd = 0
  let sum = 0
  let sumSq = 0
  let count = 0
  for (let i = from + 1; i < equity.length; i++) {
    const e = equity[i]!
    if (e > peak) peak = e
    const dd = peak > 0 ? e / peak - 1 : 0
    if (dd < maxDd) maxDd = dd
    const prev = equity[i - 1]!
    const r = prev > 0 ? e / prev - 1 : 0
    sum += r
    sumSq += r * r
    count++
  }
  const mean = sum / count
  const variance = count > 1 ? (sumSq - count * mean * mean) / (count - 1) : 0
  const sd = Math.sqrt(Math.max(0, variance))
  return {
    returnPct: (equity[equity.length - 1]! / start - 1) * 100,
    maxDrawdownPct: maxDd * 100,
    sharpe: sd > 1e-15 ? (mean / sd) * Math.sqrt(perYear) : 0,
  }
}

function distribution(values: number[]): Distribution {
  if (!values.length) return { p5: NaN, p25: NaN, p50: NaN, p75: NaN, p95: NaN, mean: NaN, min: NaN, max: NaN }
  const s = [...values].sort((a, b) => a - b)
  return {
    p5: quantile(s, 0.05), p25: quantile(s, 0.25), p50: quantile(s, 0.5), p75: quantile(s, 0.75), p95: quantile(s, 0.95),
    mean: s.reduce((a, v) => a + v, 0) / s.length, min: s[0]!, max: s[s.length - 1]!,
  }
}

/** numpy's default (linear) percentile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, sorted.length - 1)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

function medianStep(ts: Float64Array): number {
  const from = Math.max(1, ts.length - 100)
  const diffs: number[] = []
  for (let i = from; i < ts.length; i++) diffs.push(ts[i]! - ts[i - 1]!)
  diffs.sort((a, b) => a - b)
  return diffs[diffs.length >> 1] ?? 86_400_000
}
