// Zod schemas of a stored run's results: trades and equity pages, deletion, comparison and replay.
import { z } from 'zod'
import { pageQueryFields, pageSchema } from '../http/paging.js'
import { RUN_KINDS } from './rows.js'
import { runParams } from './readback-schemas.js'
import { tradeSchema } from './schemas.js'
import { COMPARE_MAX_RUNS } from './run-compare.js'

const runKind = z.enum(RUN_KINDS)

export const runPageQuery = z.object({ ...pageQueryFields })
export { runParams }

const csvLink = z.string().describe('the same list whole, as CSV: GET it with Accept: text/csv')

export const tradesPage = pageSchema('trades', tradeSchema.extend({ seq: z.number().int().describe('1-based, in the engine\'s order: closed trades by exit, then the open one') }))
  .extend({ run_id: z.number().int(), total: z.number().int().describe('trades stored with the run'), csv: csvLink })

export const equityPage = pageSchema('points', z.object({
  i: z.number().int().describe('bar index from the run\'s first bar'),
  ts: z.number().describe('epoch ms'),
  time: z.string(),
  equity: z.number(),
  drawdown_pct: z.number().describe('equity / running peak − 1, in %, ≤ 0'),
})).extend({ run_id: z.number().int(), total: z.number().int().describe('points stored with the run (one per bar)'), csv: csvLink })

export const runDeleted = z.object({
  deleted: z.object({ id: z.number().int(), kind: runKind, dataset_id: z.number().int(), strategy: z.string().nullable(), created_at: z.string() }),
  /** Whether the run itself went (its last owner, or the admin, deleted it); false while other principals still own it. */
  removed: z.boolean(),
})

export const compareQuery = z.object({
  ids: z.string().min(3).max(200).describe(`comma-separated run ids, 2 to ${COMPARE_MAX_RUNS}`),
})

const differing = z.array(z.object({ path: z.string(), values: z.array(z.unknown()).describe('each run\'s value, in the order of ids') }))

export const compareAnswer = z.object({
  ids: z.array(z.number().int()),
  runs: z.array(z.object({
    id: z.number().int(),
    kind: runKind,
    dataset: z.object({ id: z.number().int(), symbol: z.string().nullable(), timeframe: z.string().nullable(), sha256: z.string().nullable() }),
    strategy: z.string().nullable(),
    params: z.record(z.string(), z.unknown()),
    inputs: z.record(z.string(), z.unknown()),
    stats: z.record(z.string(), z.unknown()),
    fingerprint: z.string().nullable(),
    engine_version: z.string().nullable(),
    created_at: z.string(),
    href: z.string(),
  })),
  differences: z.object({ dataset: differing, inputs: differing, stats: differing }).describe('only the paths where the runs differ'),
  same_fingerprint: z.boolean().describe('every run has the same fingerprint: the same figures are expected'),
})

export const replayAnswer = z.object({
  run_id: z.number().int(),
  kind: runKind,
  identical: z.boolean().describe('every stored statistic equals the replayed one'),
  compared: z.number().int().describe('statistics compared'),
  differences: z.array(z.object({ path: z.string(), stored: z.unknown(), now: z.unknown() })),
  engine_version: z.object({ stored: z.string().nullable(), now: z.string(), same: z.boolean(), note: z.string() }),
  fingerprint: z.object({ stored: z.string().nullable(), now: z.string().nullable(), same: z.boolean() }),
  stats: z.unknown().describe('the replayed statistics'),
})

/** Paths × trades of one Monte Carlo of a run's trades, at most. */
export const MONTE_CARLO_MAX_STEPS = 20_000_000

export const monteCarloQuery = z.object({
  paths: z.coerce.number().int().min(10).max(20_000).default(1000),
  seed: z.coerce.number().int().min(0).max(2 ** 32 - 1).default(1),
  timeout_ms: z.coerce.number().int().min(1).max(60_000).optional(),
}).strict()

const percentiles = z.object({ p5: z.number(), p25: z.number(), p50: z.number(), p75: z.number(), p95: z.number() })

export const monteCarloAnswer = z.object({
  run_id: z.number().int(),
  method: z.literal('trade_bootstrap'),
  assumption: z.string(),
  start_equity: z.number(),
  paths: z.number().int(),
  trades: z.number().int().describe('closed trades resampled per path'),
  seed: z.number().int(),
  bands: z.array(percentiles.extend({ step: z.number().int().describe('trades taken') })).describe('equity percentiles after each step (at most 200 steps)'),
  final_equity: percentiles.extend({ mean: z.number() }),
  max_drawdown_pct: z.object({ p5: z.number(), p50: z.number(), p95: z.number() }),
  probability_of_loss: z.number(),
  complete: z.boolean(),
})
