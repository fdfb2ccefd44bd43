// Walk-forward search: strategies × parameter grids, chosen on rolling in-sample windows, scored out of sample.
import type { BacktestOptions, Bars, Signal, Stats, StrategyName, Trade } from './types.js'
import { executeEvents } from './execution.js'
import { LEAN_UNSUPPORTED, leanBroker, leanBuffers, leanExecute } from './lean-run.js'
import { WindowMoments, type Span } from './window-moments.js'
import { STRATEGIES, type IndicatorCache } from './strategies.js'
import { barAnnualization, computeStats, statsAnnualization, type Annualization } from './stats.js'
import { deflatedSharpeRatio, type DeflatedSharpe } from './deflated-sharpe.js'
import { barReturns, blockMoments, pboBlocks, pboFromBlocks, type Pbo } from './overfitting.js'

export interface WalkForwardSpec {
  strategies: StrategyName[]
  /** Values to try per parameter; a strategy left out uses `STRATEGIES[name].grid`. Invalid combinations are skipped. */
  grid?: Partial<Record<StrategyName, Record<string, number[]>>>
  /** In-sample window length in bars. */
  inSample: number
  /** Out-of-sample window length in bars. */
  outOfSample: number
  /** Bars between window starts (default: outOfSample, so the out-of-sample windows tile the series). */
  step?: number
  /** Costs and sizing, applied to every run (net of costs). */
  options: BacktestOptions
  /** Refuse (RangeError) grids larger than this (default 5000 configurations). */
  maxConfigs?: number
  shouldStop?: () => boolean
  /** Called after each configuration and after the folds (optional; jobs show it as progress). */
  onProgress?: (progress: { configsDone: number; configs: number; foldsDone: number; folds: number }) => void
}

export interface ConfigScore {
  strategy: StrategyName
  params: Record<string, number>
  /** Annualised Sharpe of the configuration's per-bar returns over all out-of-sample windows. */
  oos_sharpe: number | null
  /** Compounded return over all out-of-sample windows, in %. */
  oos_return_pct: number
}

export interface Overfitting {
  trials: number
  deflated_sharpe: number | null
  pbo: number | null
  pbo_detail: Pbo
}

export interface WalkForwardFold {
  in_sample: { from: number; to: number; start: number; end: number }
  out_of_sample: { from: number; to: number; start: number; end: number }
  /** The configuration with the best in-sample Sharpe, and how it then did out of sample. */
  chosen: { strategy: StrategyName; params: Record<string, number> }
  is_sharpe: number | null
  oos_sharpe: number | null
  oos_return_pct: number
}

export interface WalkForwardResult {
  /** Configurations run (strategies × grid values that pass the schemas). */
  configs_tried: number
  folds: WalkForwardFold[]
  /** Stitching each fold's in-sample choice over its out-of-sample window: the honest walk-forward figure. */
  walk_forward: { return_pct: number; sharpe: number | null; bars: number }
  /** The configuration with the highest out-of-sample edge (annualised out-of-sample Sharpe). */
  best: ConfigScore | null
  /** Full statistics of `best` over the span of the out-of-sample windows (trades entered and exited inside it). */
  oos_stats: Stats | null
  /**
   * Multiple-testing check of `best`: its per-bar out-of-sample Sharpe against the expected maximum of
   * `configs_tried` unskilled trials (Bailey & López de Prado); `dsr` near 1 means the edge survives the search.
   */
  deflated_sharpe: DeflatedSharpe | null
  /**
   * The verdict on overfitting of the whole search: the configurations actually run, `best`'s deflated Sharpe (the
   * probability its edge survives that many trials) and the PBO of the trial matrix (see overfitting.ts).
   */
  overfitting: Overfitting
  /** Every configuration run, in order (the leaderboard is the top of it). */
  scores: ConfigScore[]
  /** Per configuration, in order: (count, sum, sum of squares) of its per-bar returns in each of the PBO's blocks. */
  trial_blocks: Float64Array
  /** `best`'s position after the latest bar. */
  signal: Signal | null
  /** The top configurations by out-of-sample edge (at most 20). */
  leaderboard: ConfigScore[]
  bars_per_year: number
  /** How oos_sharpe, the folds' Sharpe ratios and walk_forward.sharpe were annualised (bars_per_year and its basis). */
  annualization: Annualization
  /** How oos_stats' annualised figures were annualised. */
  oos_stats_annualization: Annualization | null
  complete: boolean
}

interface Config {
  strategy: StrategyName
  params: Record<string, number>
}

/** Raw grid points (before the schemas drop invalid ones) above which a grid is refused outright. */
const MAX_RAW_COMBINATIONS = 1_000_000

/** Every valid configuration of the grid, in a stable order (strategy order, then parameters in grid order). */
export function enumerateConfigs(strategies: readonly StrategyName[], grid: WalkForwardSpec['grid'] = {}): Config[] {
  const out: Config[] = []
  let raw = 0
  for (const strategy of strategies) {
    const spec = STRATEGIES[strategy]
    if (!spec) throw new RangeError(`unknown strategy ${String(strategy)}`)
    const values = grid[strategy] ?? spec.grid
    const names = Object.keys(values)
    raw += names.reduce((product, name) => product * (values[name]?.length ?? 0), 1)
    if (raw > MAX_RAW_COMBINATIONS) throw new RangeError(`the grid has more than ${MAX_RAW_COMBINATIONS} parameter combinations`)
    let combos: Record<string, number>[] = [{}]
    for (const name of names) {
      const next: Record<string, number>[] = []
      for (const c of combos) for (const v of values[name] ?? []) next.push({ ...c, [name]: v })
      combos = next
    }
    for (const candidate of combos) {
      const parsed = spec.params.safeParse(candidate)
      if (parsed.success) out.push({ strategy, params: parsed.data })
    }
  }
  return out
}

/**
 * Runs every configuration once over the whole series (indicators only look back, so a window's bars never see
 * later ones), then slices its equity curve into rolling windows: in-sample [s, s+inSample) and out-of-sample
 * [s+inSample, s+inSample+outOfSample), s = 0, step, 2·step, … Scores are per-bar Sharpe ratios of the equity,
 * i.e. net of commissions and spread.
 */
export function walkForward(bars: Bars, spec: WalkForwardSpec): WalkForwardResult {
  const n = bars.close.length
  const { inSample, outOfSample } = spec
  const step = spec.step ?? outOfSample
  if (!(Number.isInteger(inSample) && inSample >= 2)) throw new RangeError(`inSample must be an integer ≥ 2, got ${inSample}`)
  if (!(Number.isInteger(outOfSample) && outOfSample >= 2)) throw new RangeError(`outOfSample must be an integer ≥ 2, got ${outOfSample}`)
  if (!(Number.isInteger(step) && step >= 1)) throw new RangeError(`step must be a positive integer, got ${step}`)
  if (inSample + outOfSample > n) throw new RangeError(`inSample + outOfSample (${inSample + outOfSample}) exceeds the ${n} bars`)
  const configs = enumerateConfigs(spec.strategies, spec.grid)
  const maxConfigs = spec.maxConfigs ?? 5000
  if (configs.length > maxConfigs) throw new RangeError(`the grid has ${configs.length} configurations, over the limit of ${maxConfigs}`)
  if (!configs.length) throw new RangeError('the grid has no valid configuration')

  const windows: { isFrom: number; oosFrom: number; oosTo: number }[] = []
  for (let s = 0; s + inSample + outOfSample <= n; s += step) windows.push({ isFrom: s, oosFrom: s + inSample, oosTo: s + inSample + outOfSample })
  const annualization = barAnnualization(bars.ts, spec.options.periodsPerYear)
  const perYear = annualization.periods_per_year
  const annualise = Math.sqrt(perYear)
  const oosSpanFrom = windows[0]!.oosFrom
  const oosSpanTo = windows[windows.length - 1]!.oosTo

  const caches = new Map<StrategyName, IndicatorCache>()
  const cacheOf = (strategy: StrategyName): IndicatorCache => {
    let cache = caches.get(strategy)
    if (!cache) caches.set(strategy, (cache = new Map()))
    return cache
  }
  // every configuration reuses the same buffers: its equity, its bar returns, their moments per window
  const broker = leanBroker(spec.options)
  const buffers = leanBuffers(n)
  const r = new Float64Array(n)
  const events = new Int8Array(n)
  const returnsInto = (config: Config, out: Float64Array): Float64Array => {
    const ev = STRATEGIES[config.strategy].events(bars, config.params, cacheOf(config.strategy), events)
    const lean = broker ? leanExecute(bars, ev.events, ev.warmup, broker, buffers) : LEAN_UNSUPPORTED
    return barReturns(lean === LEAN_UNSUPPORTED ? executeEvents(bars, ev, spec.options).equity : buffers.equity, out)
  }
  const spans: Span[] = []
  for (const w of windows) spans.push({ from: w.isFrom + 1, to: w.oosFrom }, { from: w.oosFrom, to: w.oosTo })
  spans.push({ from: oosSpanFrom, to: oosSpanTo })
  const moments = new WindowMoments(spans)
  const folds_ = windows.length
  const isSharpe = new Float64Array(configs.length * folds_)
  const oosSharpePerFold = new Float64Array(configs.length * folds_)
  const oosReturnPerFold = new Float64Array(configs.length * folds_)
  const scores: ConfigScore[] = []
  const perBarOosSharpe: number[] = []
  // Each configuration's per-bar returns over the whole series in PBO blocks (the trial matrix, as its sufficient statistics).
  const blocks = pboBlocks(n - 1, configs.length)
  const trialBlocks = new Float64Array(configs.length * 3 * blocks)
  let complete = true
  for (const config of configs) {
    if (spec.shouldStop?.()) {
      complete = false
      break
    }
    returnsInto(config, r)
    moments.load(r)
    trialBlocks.set(blockMoments(r, 1, n, blocks), scores.length * 3 * blocks)
    const row = scores.length * folds_
    for (let f = 0; f < folds_; f++) {
      const w = windows[f]!
      isSharpe[row + f] = moments.sharpe(2 * f)
      oosSharpePerFold[row + f] = moments.sharpe(2 * f + 1)
      oosReturnPerFold[row + f] = compound(r, w.oosFrom, w.oosTo)
    }
    // the whole out-of-sample span, each bar once even when windows overlap
    const perBar = moments.sharpe(2 * folds_)
    perBarOosSharpe.push(perBar)
    scores.push({
      strategy: config.strategy,
      params: config.params,
      oos_sharpe: Number.isFinite(perBar) ? perBar * annualise : null,
      oos_return_pct: compound(r, oosSpanFrom, oosSpanTo) * 100,
    })
    spec.onProgress?.({ configsDone: scores.length, configs: configs.length, foldsDone: 0, folds: windows.length })
  }
  const evaluated = scores.length

  // walk-forward: each fold's in-sample winner, measured on the fold that follows
  const folds: WalkForwardFold[] = []
  const stitched = new Accumulator()
  let stitchedGrowth = 1
  for (let f = 0; f < windows.length && evaluated; f++) {
    const w = windows[f]!
    let pick = 0
    let pickScore = -Infinity
    for (let c = 0; c < evaluated; c++) {
      const s = isSharpe[c * folds_ + f]!
      if (Number.isFinite(s) && s > pickScore) {
        pickScore = s
        pick = c
      }
    }
    const r = returnsInto(configs[pick]!, new Float64Array(n))
    const oosFrom = f === 0 ? w.oosFrom : Math.max(w.oosFrom, windows[f - 1]!.oosTo)
    for (let i = oosFrom; i < w.oosTo; i++) {
      stitched.add(r[i]!)
      stitchedGrowth *= 1 + r[i]!
    }
    folds.push({
      in_sample: { from: w.isFrom, to: w.oosFrom - 1, start: bars.ts[w.isFrom]!, end: bars.ts[w.oosFrom - 1]! },
      out_of_sample: { from: w.oosFrom, to: w.oosTo - 1, start: bars.ts[w.oosFrom]!, end: bars.ts[w.oosTo - 1]! },
      chosen: { strategy: configs[pick]!.strategy, params: configs[pick]!.params },
      is_sharpe: finiteOrNull(pickScore * annualise),
      oos_sharpe: finiteOrNull(oosSharpePerFold[pick * folds_ + f]! * annualise),
      oos_return_pct: oosReturnPerFold[pick * folds_ + f]! * 100,
    })
  }

  spec.onProgress?.({ configsDone: evaluated, configs: configs.length, foldsDone: folds.length, folds: windows.length })

  // the highest out-of-sample edge, deflated for the number of configurations searched
  let bestIdx = -1
  for (let c = 0; c < evaluated; c++) {
    const s = perBarOosSharpe[c]!
    if (Number.isFinite(s) && (bestIdx < 0 || s > perBarOosSharpe[bestIdx]!)) bestIdx = c
  }
  const best = bestIdx >= 0 ? scores[bestIdx]! : null
  let oosStats: Stats | null = null
  let dsr: DeflatedSharpe | null = null
  let signal: Signal | null = null
  if (best) {
    const ev = STRATEGIES[best.strategy].events(bars, best.params, caches.get(best.strategy))
    const run = executeEvents(bars, ev, spec.options)
    oosStats = sliceStats(bars, run.equity, run.trades.slice(0, run.closedTrades), oosSpanFrom, oosSpanTo, run.warmup, spec.options.periodsPerYear)
    const last = run.positions[n - 1] ?? 0
    signal = last > 0 ? 'long' : last < 0 ? 'short' : 'flat'
    dsr = deflatedSharpeRatio({
      sharpe: perBarOosSharpe[bestIdx]!,
      trialSharpes: perBarOosSharpe,
      trials: evaluated,
      returns: returnsInto(configs[bestIdx]!, new Float64Array(n)).subarray(oosSpanFrom, oosSpanTo),
    })
  }
  const trials = Array.from({ length: evaluated }, (_v, c) => trialBlocks.subarray(c * 3 * blocks, (c + 1) * 3 * blocks))
  const pbo = pboFromBlocks(trials, blocks)
  const leaderboard = scores
    .map((s, i) => ({ s, k: perBarOosSharpe[i]! }))
    .filter((x) => Number.isFinite(x.k))
    .sort((a, b) => b.k - a.k)
    .slice(0, 20)
    .map((x) => x.s)

  return {
    configs_tried: evaluated,
    folds,
    walk_forward: { return_pct: (stitchedGrowth - 1) * 100, sharpe: finiteOrNull(stitched.sharpe() * annualise), bars: stitched.count },
    best,
    oos_stats: oosStats,
    deflated_sharpe: dsr,
    overfitting: { trials: evaluated, deflated_sharpe: dsr?.dsr ?? null, pbo: pbo.pbo, pbo_detail: pbo },
    scores,
    trial_blocks: trialBlocks.slice(0, evaluated * 3 * blocks),
    signal,
    leaderboard,
    bars_per_year: perYear,
    annualization,
    oos_stats_annualization: oosStats ? statsAnnualization(bars.ts.subarray(oosSpanFrom, oosSpanTo), spec.options.periodsPerYear) : null,
    complete,
  }
}

/** Statistics of one run restricted to bars [from, to): equity, closes and the trades that lie wholly inside. */
function sliceStats(bars: Bars, equity: Float64Array, trades: readonly Trade[], from: number, to: number, warmup: number, periodsPerYear?: number): Stats {
  const inside = trades
    .filter((t) => t.entryBar >= from && t.exitBar !== null && t.exitBar < to)
    .map((t) => ({ ...t, entryBar: t.entryBar - from, exitBar: t.exitBar! - from }))
  return computeStats({
    ts: bars.ts.subarray(from, to),
    close: bars.close.subarray(from, to),
    equity: equity.subarray(from, to),
    trades: inside,
    firstTradingBar: Math.max(0, warmup - from),
    periodsPerYear,
  })
}

function compound(r: Float64Array, from: number, to: number): number {
  let g = 1
  for (let i = from; i < to; i++) {
    const x = r[i]!
    if (x !== 0) g *= 1 + x // × (1 + 0) leaves g as it is
  }
  return g - 1
}

/** Running mean and variance (Welford) of per-bar returns; Sharpe = mean / sample sd, NaN when flat. */
class Accumulator {
  count = 0
  private mean = 0
  private m2 = 0
  add(x: number): void {
    this.count++
    const d = x - this.mean
    this.mean += d / this.count
    this.m2 += d * (x - this.mean)
  }
  sharpe(): number {
    if (this.count < 2) return NaN
    const sd = Math.sqrt(this.m2 / (this.count - 1))
    return sd > 1e-15 ? this.mean / sd : NaN
  }
}

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null
}
