// Public API of the pure trading engine (no I/O, no clock): indicators, strategies, backtests, statistics, simulation.
/**
 * NCM Hub trading engine — the stable API the platform builds on.
 *
 * Data
 * - `Bars`: parallel Float64Arrays `ts` (epoch ms, strictly increasing), `open`, `high`, `low`, `close`, `volume`.
 * - `parseOhlcvCsv(text)` → `{ bars, rows }`; throws `CsvError` (`.issues: { line, message }[]`, 1-based file lines).
 * - `generateSyntheticBars({ seed, bars, startTs, stepMs, s0, calendar, regimes })` → seeded GBM with regime changes.
 *   `SYNTHETIC_PRESETS.daily10y` / `.intraday100k` are the seeded datasets of SPEC §3.1.
 *
 * Indicators (Float64Array in, Float64Array out, NaN during warm-up):
 *   `sma, ema, rsi, atr, bollinger → {middle, upper, lower}, donchian → {upper, lower, middle}, macd → {macd, signal, histogram}`.
 *
 * Strategies
 * - `StrategyName`, `STRATEGY_NAMES`, `STRATEGIES[name]` = `{ params (zod schema with defaults, ranges and cross-field
 *   refinements, e.g. fast < slow), defaults, grid (default search values per parameter), describe }`.
 * - `parseStrategyParams(name, raw)` → validated params with defaults (throws ZodError).
 * - `signalOf(bars, strategy, params, allowShort?)` → `'long' | 'flat' | 'short'`: the target after the latest bar's close.
 *
 * Backtest — backtesting.py 0.6.6 semantics (SPEC §3.2), see execution.ts and stats.ts for every definition:
 * - `runBacktest(bars, strategy, params, options: BacktestOptions, extra?: { cache?, convention? })` →
 *   `BacktestResult { stats, trades, equity, drawdown, positions, units, cash, startBar }`.
 *   `stats` has exactly the SPEC §6 keys (`STATS_KEYS`); `start`/`end` are epoch ms, durations are days (rounded up
 *   to the bars' resolution like the reference), percentages are percent, drawdowns negative; a figure the data
 *   cannot define (no trades, zero volatility, a ratio over zero) is null. Params are validated by the strategy's zod
 *   schema (a ZodError for bad ones). `trades` holds closed trades, then the one still open (exit fields null).
 *   Options: `cash`, `commission` (fraction, charged at entry and exit), `spread` (entry price × (1 ± spread)),
 *   `slippageBps` (adverse, on entry and exit fills), `allowShort` (default long-only), `finalizeTrades`,
 *   `size: { fraction } | { units }` (default: all cash, whole units).
 * - `executeEvents(bars, events, options)` is the broker alone, for callers with events of their own.
 * - `computeStats(...)` for callers that hold an equity curve and trades of their own.
 *
 * Research
 * - `simulate(bars, strategy, params, options, { paths, horizon, method: 'bootstrap'|'gbm', block?, seed, shouldStop? })`
 *    → `MonteCarloResult` (percentiles of return %, max drawdown %, Sharpe; probability of loss; VaR/CVaR 95 and 99).
 * - `walkForward(bars, { strategies, grid?, inSample, outOfSample, step?, options, shouldStop? })` → `WalkForwardResult`
 *    (configs tried, per-fold in-sample choice and its out-of-sample score, the config with the highest out-of-sample
 *    edge, its out-of-sample stats, deflated Sharpe ratio, latest signal).
 * - `inSampleGrid(bars, { fast: number[], slow: number[] }, options, maximize?)` → the v10 in-sample sma_cross grid.
 * - `deflatedSharpeRatio(...)`, `normalCdf`, `normalQuantile` for callers that score their own trials.
 *
 * Randomness: `createRng(seed)` (xoshiro128**), the only source of randomness here; same seed, same numbers.
 * Long-running calls (`simulate`, `walkForward`, `inSampleGrid`) accept `shouldStop?: () => boolean`, checked between
 * units of work, and then answer with what they have and `complete: false`.
 */
export type {
  Bars, StrategyName, Signal, BacktestOptions, Trade, Stats, BacktestResult,
} from './types.js'

export { sma, ema, rsi, atr, bollinger, donchian, macd } from './indicators.js'
export type { Bands, MacdLines } from './indicators.js'

export {
  STRATEGIES, STRATEGY_NAMES, parseStrategyParams, strategyEvents, positionsFromEvents, signalOf,
} from './strategies.js'
export type { StrategySpec, StrategyEvents, IndicatorCache } from './strategies.js'

export { runBacktest, executeEvents } from './execution.js'
export type { Execution } from './execution.js'

export { computeStats, STATS_KEYS, barsPerYear, statsAnnualization, barAnnualization } from './stats.js'
export type { StatsInput, StatsConvention, Annualization } from './stats.js'

export { simulate } from './simulate.js'
export type { SimulateSpec, MonteCarloResult, Distribution } from './simulate.js'

export { walkForward, enumerateConfigs } from './walk-forward.js'
export type { WalkForwardSpec, WalkForwardResult, WalkForwardFold, ConfigScore } from './walk-forward.js'

export { gridPairCount, gridSlices, inSampleGrid, mergeGridResults } from './grid.js'
export type { SmaGrid, GridResult, GridRow, GridSlice } from './grid.js'

export { deflatedSharpeOfMoments, deflatedSharpeRatio, normalCdf, normalQuantile } from './deflated-sharpe.js'
export type { DeflatedSharpe } from './deflated-sharpe.js'

export { generateSyntheticBars, SYNTHETIC_PRESETS, DEFAULT_REGIMES } from './synthetic.js'
export type { SyntheticSpec, Regime } from './synthetic.js'

export { parseOhlcvCsv, csvOutcome, CsvError, CsvRowLimit } from './csv.js'
export type { CsvIssue, CsvOptions, CsvOutcome, ParsedCsv } from './csv.js'

export { createRng } from './prng.js'
export type { Rng } from './prng.js'
export { ENGINE_VERSION } from './engine-version.js'
