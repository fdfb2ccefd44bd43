// Zod schemas of the trading surface's requests and answers; the routes and the OpenAPI document are built from them.
import { z } from 'zod'
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../mill/pool.js'
import { STRATEGY_NAMES } from '../engines/trading/index.js'
import { EQUITY_MAX_POINTS, INLINE_TRADES_MAX } from '../engines/trading/answer-caps.js'
import type { StrategyName } from '../engines/trading/types.js'
import { MAX_CONFIGS } from './research/limits.js'
import { scaleOutSchema } from '../plugins/scale-out.js'
import { storeStatusSchema } from '../store/status.js'
import { isBodyBytes } from '../body-parse/formats.js'

export const PLATFORM_VERSION = '11.0.0' as const

// ---- shared atoms ----------------------------------------------------------------------------------------------

/** A dataset id or symbol, as every research body names its dataset. */
const datasetId = z.union([z.number().int().positive(), z.string().min(1).max(64)])
export const datasetRef = datasetId
  .describe('a dataset id, a symbol, or symbol@timeframe when a symbol has several timeframes')
export const strategyName = z.enum(STRATEGY_NAMES as [StrategyName, ...StrategyName[]])
export const strategyParams = z.record(z.string(), z.number())
  .describe('strategy parameters; omitted ones take their defaults (see /api/v11/system/inventory)')
const timeBound = z.union([z.number().int(), z.string().min(4).max(40)])
  .describe('an ISO 8601 date/time (UTC when no offset) or epoch milliseconds; inclusive')
/** The budget of heavy work, bounded by the mill's own limit. */
const timeoutBudget = z.number().int().min(1).max(MAX_TIMEOUT_MS).optional()
const timeoutMs = timeoutBudget
  .describe(`time budget of the heavy work in ms (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS})`)

/** Trading costs and cash: ranges shared by every body; each route picks its defaults. */
const cost = {
  cash: z.number().positive().max(1e12),
  commission: z.number().min(0).max(0.1),
  spread: z.number().min(0).max(0.1),
  slippage_bps: z.number().min(0).max(1000),
  allow_short: z.boolean(),
}

/** Stated periods per year: the annualised figures then use per-bar returns and this many periods a year. */
const periodsPerYear = z.number().positive().max(10_000_000).optional()
  .describe('periods per year for every annualised figure, which then uses per-bar returns (default: derived from the bars and stated as `annualization`)')

export const annualizationSchema = z.object({
  periods_per_year: z.number(),
  basis: z.string().describe('how periods_per_year was derived: weekday daily → 252, with weekends → 365, intraday from the bars\' timeframe, or the request\'s periods_per_year'),
}).describe('how the annualised figures beside it were annualised')

const costFields = {
  cash: cost.cash.default(10_000).describe('starting cash'),
  commission: cost.commission.default(0).describe('fraction of traded value, at entry and at exit'),
  spread: cost.spread.optional().describe('bid-ask spread as a fraction; moves the entry price'),
  slippage_bps: cost.slippage_bps.optional().describe('extra adverse slippage in basis points'),
  allow_short: cost.allow_short.default(false).describe('short on sell signals instead of going flat'),
}

const nullableNumber = z.number().nullable()

export const statsSchema = z.object({
  start: z.string(),
  end: z.string(),
  duration_days: nullableNumber,
  exposure_pct: nullableNumber,
  equity_final: nullableNumber,
  equity_peak: nullableNumber,
  commissions: nullableNumber,
  return_pct: nullableNumber,
  buy_hold_return_pct: nullableNumber,
  return_ann_pct: nullableNumber,
  volatility_ann_pct: nullableNumber,
  cagr_pct: nullableNumber,
  sharpe_ratio: nullableNumber,
  sortino_ratio: nullableNumber,
  calmar_ratio: nullableNumber,
  alpha_pct: nullableNumber,
  beta: nullableNumber,
  max_drawdown_pct: nullableNumber,
  avg_drawdown_pct: nullableNumber,
  max_drawdown_duration_days: nullableNumber,
  avg_drawdown_duration_days: nullableNumber,
  trades: z.number().int(),
  win_rate_pct: nullableNumber,
  best_trade_pct: nullableNumber,
  worst_trade_pct: nullableNumber,
  avg_trade_pct: nullableNumber,
  max_trade_duration_days: nullableNumber,
  avg_trade_duration_days: nullableNumber,
  profit_factor: nullableNumber,
  expectancy_pct: nullableNumber,
  sqn: nullableNumber,
  kelly_criterion: nullableNumber,
  annualization: annualizationSchema.optional(),
}).describe('backtesting.py 0.6.6 statistics (SPEC §6); start and end as ISO 8601; undefined figures are null')

const located = z.object({ line: z.number().int().nullable().describe('1-based line of the imported file; null for generated bars'), time: z.string() })

export const qualitySchema = z.object({
  timeframe: z.string().describe('inferred from the median spacing of the bars'),
  timestamps: z.object({
    format: z.enum(['date', 'iso', 'epoch_s', 'epoch_ms', 'epoch_us', 'generated']),
    zone: z.string().describe('the offset(s) the times were written with, e.g. UTC, +02:00 or "mixed: +01:00, +02:00"'),
    normalised_to: z.literal('UTC'),
  }),
  gaps: z.object({
    count: z.number().int(),
    largest_s: z.number().nullable(),
    first: z.object({ after: z.string(), before: z.string(), line: z.number().int().nullable() }).nullable(),
    rule: z.string(),
  }),
  closed_days: z.number().int().describe('single missing weekdays in weekday-only data (exchange holidays), not counted as gaps'),
  zero_volume: z.object({ count: z.number().int(), first: located.nullable(), volume: z.enum(['present', 'absent']) }),
  stale: z.object({ count: z.number().int().describe('runs'), longest: z.number().int(), first: located.nullable(), rule: z.string() }),
  outliers: z.object({ count: z.number().int(), largest_abs_return_pct: z.number().nullable(), first: located.nullable(), rule: z.string() }),
  issues: z.number().int().describe('gaps + zero-volume bars + stale runs + outliers; ?strict=true refuses a dataset with any'),
  first_issue: z.object({ kind: z.enum(['gap', 'zero_volume', 'stale', 'outlier']), line: z.number().int().nullable(), time: z.string() }).nullable(),
}).describe('what may be real in the bars but changes results (reported at import, not refused)')

export const datasetSchema = z.object({
  id: z.number().int(),
  symbol: z.string(),
  timeframe: z.string(),
  source: z.enum(['synthetic', 'import']),
  rows: z.number().int(),
  first_ts: z.string().nullable(),
  last_ts: z.string().nullable(),
  sha256: z.string(),
  seed: z.number().int().nullable(),
  generator: z.record(z.string(), z.unknown()).nullable(),
  origin: z.string().nullable(),
  created_at: z.string(),
  quality: qualitySchema.nullable(),
  quality_note: z.string().optional().describe('why there is no quality report'),
})

const datasetBrief = z.object({ id: z.number().int(), symbol: z.string(), timeframe: z.string(), source: z.string() })

// ---- datasets ---------------------------------------------------------------------------------------------------

export const importQuery = z.object({
  symbol: z.string().min(1).max(32).optional(),
  timeframe: z.string().min(2).max(16).optional(),
  strict: z.enum(['true', 'false', '1', '0']).optional().describe('true: refuse a dataset with any quality issue (gaps, zero-volume bars, stale runs, outliers), naming the first line'),
}).strict()

export const importJsonBody = z.object({
  symbol: z.string().min(1).max(32),
  timeframe: z.string().min(2).max(16).optional().describe('inferred from the bars when absent'),
  strict: z.boolean().optional().describe('refuse a dataset with any quality issue'),
  csv: z.string().min(1),
}).strict()

/**
 * A text/csv body as the body reader keeps it: its bytes, which the mill decodes (isBodyBytes). Refused as the text
 * branch is ("expected string"), and left out of the OpenAPI document, which shows that branch for it.
 */
const csvBodyBytes = z.custom<Uint8Array[]>().check((ctx) => {
  if (!isBodyBytes(ctx.value)) ctx.issues.push({ code: 'invalid_type', expected: 'string', input: ctx.value })
})

export const importBody = z.union([
  z.string().describe('text/csv: Date,Open,High,Low,Close,Volume (symbol and timeframe in the query)'),
  importJsonBody,
  csvBodyBytes,
])

export const importAnswer = z.object({
  id: z.number().int(),
  created: z.boolean(),
  dataset: datasetSchema,
})


// ---- backtest ---------------------------------------------------------------------------------------------------

export const backtestBody = z.object({
  dataset: datasetRef,
  strategy: strategyName,
  params: strategyParams.default({}),
  ...costFields,
  finalize_trades: z.boolean().default(false).describe('close trades still open at the last bar\'s open'),
  size: z.union([
    z.object({ fraction: z.number().gt(0).lt(1) }).strict(),
    z.object({ units: z.number().int().min(1) }).strict(),
  ]).optional().describe('default: all available cash in whole units'),
  from: timeBound.optional(),
  to: timeBound.optional(),
  periods_per_year: periodsPerYear,
  include: z.array(z.enum(['trades', 'equity'])).max(2).default([]),
  equity_points: z.number().int().min(2).max(EQUITY_MAX_POINTS).optional()
    .describe(`downsample the equity curve to at most this many points (default and most: ${EQUITY_MAX_POINTS}; each bucket keeps its low and its high); every bar: GET /api/v11/runs/{id}/equity`),
  timeout_ms: timeoutMs,
}).strict()
export type BacktestBody = z.infer<typeof backtestBody>

export const tradeSchema = z.object({
  size: z.number(),
  entry_bar: z.number().int(),
  exit_bar: z.number().int().nullable(),
  entry_time: z.string(),
  exit_time: z.string().nullable(),
  entry_price: z.number(),
  exit_price: z.number().nullable(),
  pnl: z.number(),
  return_pct: z.number(),
  commissions: z.number(),
  open: z.boolean(),
})

const equitySeries = z.object({
  points: z.array(z.tuple([z.number(), z.number()]))
    .describe(`[epoch ms, equity] pairs: at most equity_points, ${EQUITY_MAX_POINTS} by default (downsampled; every bar: GET /api/v11/runs/{id}/equity, paged or text/csv)`),
  total_points: z.number().int(),
  downsampled: z.boolean(),
})

const runRef = z.object({
  id: z.number().int(),
  inputs_digest: z.string(),
  fingerprint: z.string().describe('digest of the dataset\'s content, kind, strategy, parameters, costs, engine version and seed: the same fingerprint gives the same figures (POST /api/v11/runs/{id}/replay checks it)'),
  same_inputs_as_run: z.number().int().nullable().describe('an earlier run with the same inputs digest, if any'),
  created_at: z.string(),
  elapsed_ms: z.number(),
  stored: z.boolean().describe('false: an identical run was stored before (identical runs are stored once); id and created_at are that run\'s'),
})

export const backtestAnswer = z.object({
  run: runRef,
  dataset: datasetBrief.extend({ bars: z.number().int(), from: z.string(), to: z.string() }),
  strategy: strategyName,
  params: z.record(z.string(), z.number()),
  settings: z.object({
    cash: z.number(),
    commission: z.number(),
    spread: z.number(),
    slippage_bps: z.number(),
    allow_short: z.boolean(),
    finalize_trades: z.boolean(),
    size: z.record(z.string(), z.number()).nullable(),
    periods_per_year: z.number().optional(),
  }),
  stats: statsSchema,
  trades: z.array(tradeSchema).optional()
    .describe(`include trades: the first ${INLINE_TRADES_MAX} trades at most; the rest are paged at GET /api/v11/runs/{id}/trades`),
  trades_total: z.number().int().optional().describe('include trades: how many trades the run has'),
  trades_next_cursor: z.string().nullable().optional()
    .describe('include trades: pass as ?cursor= to GET /api/v11/runs/{run.id}/trades for the trades after those inline; null when they are all inline'),
  equity: equitySeries.optional(),
})

export const simulateBody = z.object({
  dataset: datasetRef,
  strategy: strategyName,
  params: strategyParams.default({}),
  ...costFields,
  paths: z.number().int().min(1).max(20_000).default(1000),
  horizon: z.number().int().min(2).max(20_000).default(252).describe('bars simulated after the last real bar'),
  method: z.enum(['bootstrap', 'gbm']).default('bootstrap'),
  block: z.number().int().min(1).max(1000).optional().describe('bootstrap block length in bars (default 1)'),
  seed: z.number().int().min(0).max(2 ** 32 - 1).default(1),
  periods_per_year: periodsPerYear,
  timeout_ms: timeoutMs,
}).strict()
export type SimulateBody = z.infer<typeof simulateBody>

const distribution = z.object({
  p5: nullableNumber, p25: nullableNumber, p50: nullableNumber, p75: nullableNumber, p95: nullableNumber,
  mean: nullableNumber, min: nullableNumber, max: nullableNumber,
})

export type BacktestAnswer = z.infer<typeof backtestAnswer>

// ---- simulate ---------------------------------------------------------------------------------------------------

export const simulateAnswer = z.object({
  run: runRef,
  dataset: datasetBrief.extend({ bars: z.number().int() }),
  strategy: strategyName,
  params: z.record(z.string(), z.number()),
  method: z.enum(['bootstrap', 'gbm']),
  paths: z.number().int(),
  paths_requested: z.number().int(),
  horizon: z.number().int(),
  block: z.number().int(),
  seed: z.number().int(),
  complete: z.boolean(),
  history_bars: z.number().int(),
  bars_per_year: z.number(),
  annualization: annualizationSchema,
  return_pct: distribution,
  max_drawdown_pct: distribution,
  sharpe: distribution,
  probability_of_loss: nullableNumber,
  var95_pct: nullableNumber,
  cvar95_pct: nullableNumber,
  var99_pct: nullableNumber,
  cvar99_pct: nullableNumber,
  model: z.object({ mu_per_bar: nullableNumber, sigma_per_bar: nullableNumber }),
})
export type SimulateAnswer = z.infer<typeof simulateAnswer>

// ---- signal searches --------------------------------------------------------------------------------------------

const gridSchema = z.record(z.string(), z.record(z.string(), z.array(z.number()).min(1).max(200)))
  .describe('values to try per strategy and parameter, e.g. {"sma_cross": {"fast": [5,10], "slow": [20,50]}}; strategies left out use their default grid')

export const maxEdgeBody = z.object({
  dataset: datasetId,
  strategies: z.array(strategyName).min(1).max(STRATEGY_NAMES.length).optional()
    .describe('default: every strategy'),
  grid: gridSchema.optional(),
  in_sample: z.number().int().min(20).max(1_000_000).optional().describe('in-sample window in bars (default: a fifth of the bars, 50..2520)'),
  out_of_sample: z.number().int().min(5).max(1_000_000).optional().describe('out-of-sample window in bars (default: in_sample / 4)'),
  step: z.number().int().min(1).max(1_000_000).optional().describe('bars between window starts (default: out_of_sample)'),
  max_configs: z.number().int().min(1).max(MAX_CONFIGS).optional().describe(`refuse grids with more configurations (≤ ${MAX_CONFIGS})`),
  cash: cost.cash.default(10_000),
  commission: cost.commission.default(0.001),
  spread: cost.spread.optional(),
  slippage_bps: cost.slippage_bps.optional(),
  allow_short: cost.allow_short.default(false),
  periods_per_year: periodsPerYear,
  timeout_ms: timeoutBudget,
}).strict()
export type MaxEdgeBody = z.infer<typeof maxEdgeBody>

const V10_MAXIMIZE = ['sharpe_ratio', 'return_pct', 'sortino_ratio', 'calmar_ratio', 'equity_final', 'sqn', 'win_rate_pct'] as const

export const maxEdgeV10Body = z.object({
  dataset: datasetId,
  fast: z.array(z.number().int().min(1).max(1000)).min(1).max(200).optional(),
  slow: z.array(z.number().int().min(2).max(1000)).min(1).max(200).optional(),
  maximize: z.enum(V10_MAXIMIZE).default('sharpe_ratio'),
  cash: cost.cash.default(10_000),
  commission: cost.commission.default(0.002),
  timeout_ms: timeoutBudget,
}).strict()
export type MaxEdgeV10Body = z.infer<typeof maxEdgeV10Body>

// ---- paper full cycle -------------------------------------------------------------------------------------------

export const PAPER_ACCOUNT = 'paper'
export const PAPER_CURRENCY = 'USD'
/** The opening deposit of a paper account, made when its first cycle runs. */
export const PAPER_INITIAL_CASH = 100_000

export const fullCycleBody = z.object({
  dataset: datasetRef,
  strategy: strategyName.optional().describe('omit it to let a walk-forward search pick the strategy (heavy: runs in the mill)'),
  params: strategyParams.optional(),
  search: z.object({
    strategies: z.array(strategyName).min(1).optional(),
    in_sample: z.number().int().min(20).max(1_000_000).optional(),
    out_of_sample: z.number().int().min(5).max(1_000_000).optional(),
  }).strict().optional().describe('options of the search when no strategy is given'),
  account: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/).default(PAPER_ACCOUNT)
    .describe(`paper account; created with ${PAPER_INITIAL_CASH} ${PAPER_CURRENCY} on its first cycle`),
  mode: z.enum(['paper', 'live']).default('paper').describe('only paper is served; live is refused'),
  risk: z.object({
    fraction: z.number().gt(0).max(0.1).default(0.01).describe('share of equity at risk against the ATR stop'),
    atr_period: z.number().int().min(2).max(500).default(14),
    atr_multiple: z.number().gt(0).max(20).default(2).describe('stop distance in ATRs'),
    max_position_pct: z.number().gt(0).max(100).default(25).describe('cap on the position value, % of equity'),
  }).strict().prefault({}),
  commission: cost.commission.default(0.001),
  slippage_bps: cost.slippage_bps.default(5).describe('fill = latest close moved against the order by this'),
  allow_short: cost.allow_short.default(false),
  timeout_ms: timeoutBudget,
}).strict()
export type FullCycleBody = z.infer<typeof fullCycleBody>

// ---- system -----------------------------------------------------------------------------------------------------

export const modeAnswer = z.object({
  mode: z.literal('paper'),
  live_trading: z.literal(false),
  reason: z.string(),
  broker: z.null().describe('no broker is connected; orders are filled against stored bars'),
})

export const checkSchema = z.object({
  name: z.string(),
  subject: z.string().nullable(),
  ok: z.boolean(),
  detail: z.string(),
  elapsed_ms: z.number(),
})

export const verifyAnswer = z.object({
  ok: z.boolean(),
  checked_at: z.string(),
  summary: z.object({ passed: z.number().int(), failed: z.number().int() }),
  checks: z.array(checkSchema),
  cached: z.boolean().describe('True when this is the answer of a verification run less than VERIFY_CACHE_MS ago (checked_at says when it ran)'),
})

export const dbStatsAnswer = z.object({
  backend: z.enum(['sqlite', 'postgres']).describe('postgres when DATABASE_URL is set'),
  server_version: z.string().describe("SQLite's library version or PostgreSQL's server_version"),
  sqlite_version: z.string().nullable().describe('null on PostgreSQL'),
  journal_mode: z.string().nullable().describe('null on PostgreSQL'),
  in_memory: z.boolean(),
  page_size: z.number().int().nullable().describe('null on PostgreSQL'),
  page_count: z.number().int().nullable().describe('null on PostgreSQL'),
  freelist_count: z.number().int().nullable().describe('null on PostgreSQL'),
  database_bytes: z.number().int().describe('SQLite: page_size × page_count; PostgreSQL: pg_database_size'),
  file_bytes: z.number().int().nullable().describe('null for an in-memory database and on PostgreSQL'),
  wal_bytes: z.number().int().nullable().describe('null for an in-memory database, when no WAL file exists, and on PostgreSQL'),
  tables: z.array(z.object({
    name: z.string(),
    rows: z.number().int().describe('count(*)'),
    bytes: z.number().int().nullable().describe('PostgreSQL: pg_total_relation_size (table, indexes, TOAST); null on SQLite'),
  })),
  migrations: z.array(z.object({ name: z.string(), applied_at: z.string() })),
})

export const componentSchema = z.object({
  name: z.string(),
  status: z.enum(['ok', 'degraded', 'down']),
  detail: z.string(),
}).loose()

export const rootHealthAnswer = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  version: z.literal(PLATFORM_VERSION),
  mode: z.literal('paper'),
  uptime_s: z.number(),
  started_at: z.string(),
  checks: z.object({
    database: z.object({ ok: z.boolean(), detail: z.string(), latency_ms: z.number() }),
  }),
  scale_out: scaleOutSchema,
  store: storeStatusSchema,
})

export const v11HealthAnswer = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  version: z.literal(PLATFORM_VERSION),
  uptime_s: z.number(),
  checked_at: z.string(),
  components: z.array(componentSchema),
})

export const v10HealthAnswer = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  version: z.string(),
  api: z.literal('v10'),
  uptime: z.number().describe('seconds'),
  db: z.enum(['ok', 'error']),
  datasets: z.number().int(),
  deprecated: z.literal(true),
  successor: z.string(),
})

// ---- shared answer pieces for the signal searches ----------------------------------------------------------------

export const signalValue = z.enum(['long', 'flat', 'short'])


