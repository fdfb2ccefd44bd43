// Zod schemas of the read-back routes (runs, one dataset with its bars, deletion, the paper ledger's lists).
import { z } from 'zod'
import { pageQueryFields, pageSchema } from '../http/paging.js'
import { RUN_KINDS } from './rows.js'
import { datasetSchema, strategyName, tradeSchema } from './schemas.js'

const id = z.number().int()
const datasetFilter = z.string().min(1).max(64).optional().describe('a dataset id, symbol, or symbol@timeframe')

// ---- datasets ---------------------------------------------------------------------------------------------------

export const datasetListQuery = z.object({ ...pageQueryFields })
export const datasetPage = pageSchema('datasets', datasetSchema)

export const datasetParams = z.object({ ref: z.string().min(1).max(64).describe('a dataset id, symbol, or symbol@timeframe') })

const references = z.object({
  runs: z.number().int(), signals: z.number().int(), cycles: z.number().int(),
  orders: z.number().int(), fills: z.number().int(), positions: z.number().int(),
}).describe('rows that refer to the dataset')

export const datasetDetail = pageSchema('bars', z.object({
  ts: z.number().int().describe('epoch ms (UTC)'),
  time: z.string(),
  open: z.number(), high: z.number(), low: z.number(), close: z.number(), volume: z.number(),
})).extend({ dataset: datasetSchema, references })

export const datasetDeleteQuery = z.object({
  cascade: z.enum(['true', 'false', '1', '0']).optional().describe('true also deletes the runs and signals that refer to the dataset'),
})

export const datasetDeleted = z.object({
  deleted: datasetSchema,
  removed: z.object({ bars: z.number().int(), runs: z.number().int(), signals: z.number().int() }),
})

// ---- runs -------------------------------------------------------------------------------------------------------

const runKind = z.enum(RUN_KINDS)
const runDataset = z.object({ id, symbol: z.string(), timeframe: z.string() })
const headline = z.record(z.string(), z.number().nullable()).describe('the figures the command center shows for this kind of run')

export const runListQuery = z.object({
  ...pageQueryFields,
  kind: runKind.optional(),
  dataset: datasetFilter,
  strategy: strategyName.optional(),
})

export const runPage = pageSchema('runs', z.object({
  id,
  kind: runKind,
  dataset: runDataset,
  strategy: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  headline,
  inputs_digest: z.string(),
  equity_stored: z.boolean(),
  elapsed_ms: z.number(),
  created_at: z.string(),
  href: z.string().describe('where the whole run is read'),
}))

export const runParams = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ description: 'A stored run (GET /api/v11/runs lists them)', example: 1 }),
})

export const runQuery = z.object({
  include: z.enum(['trades']).optional().describe('trades: recompute the trade list from the stored inputs (a backtest in the mill)'),
  equity_points: z.coerce.number().int().min(2).max(100_000).optional().describe('downsample the stored equity curve further'),
})

export const runDetail = z.object({
  id,
  kind: runKind,
  dataset: runDataset.extend({ sha256: z.string() }),
  strategy: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  inputs: z.record(z.string(), z.unknown()).describe('the normalised request that produced the run'),
  inputs_digest: z.string(),
  same_inputs_as_run: z.number().int().nullable().describe('an earlier run with the same inputs digest, if any'),
  stats: z.record(z.string(), z.unknown()),
  headline,
  equity: z.object({
    points: z.array(z.tuple([z.number(), z.number()])).describe('[epoch ms, equity] pairs'),
    stored_points: z.number().int(),
    downsampled: z.boolean().describe('fewer points than stored (equity_points)'),
  }).nullable(),
  equity_note: z.string().describe('how the curve was kept, or why there is none'),
  trades: z.array(tradeSchema).nullable(),
  trades_note: z.string().describe('trades are recomputed on request, or why there are none'),
  trades_verified: z.boolean().optional().describe('the recomputed statistics equal the stored ones'),
  elapsed_ms: z.number(),
  created_at: z.string(),
})

// ---- the paper ledger -------------------------------------------------------------------------------------------

export const ledgerQuery = z.object({
  ...pageQueryFields,
  account: z.string().min(1).max(64).optional().describe('an account id, e.g. paper'),
  dataset: datasetFilter,
})
export const accountQuery = z.object({ ...pageQueryFields })

const side = z.enum(['buy', 'sell'])

export const accountPage = pageSchema('accounts', z.object({
  id: z.string(), currency: z.string(), initial_cash: z.number(), cash: z.number(), created_at: z.string(),
}))
export const positionPage = pageSchema('positions', z.object({
  account_id: z.string(), dataset_id: id, symbol: z.string(), quantity: z.number().describe('signed: negative is short'),
  avg_price: z.number(), realized_pnl: z.number(), updated_at: z.string(),
}))
export const orderPage = pageSchema('orders', z.object({
  id, cycle_id: id, account_id: z.string(), dataset_id: id, symbol: z.string(), side, quantity: z.number(),
  type: z.literal('market'), status: z.literal('filled'), reference_price: z.number(), created_at: z.string(),
}))
export const fillPage = pageSchema('fills', z.object({
  id, order_id: id, account_id: z.string(), dataset_id: id, symbol: z.string(), side, quantity: z.number(), price: z.number(),
  commission: z.number(), slippage_bps: z.number(), bar_ts: z.number().int(), created_at: z.string(),
}))
export const cyclePage = pageSchema('cycles', z.object({
  id, account_id: z.string(), dataset_id: id, signal_id: id, idempotency_key: z.string().nullable(),
  outcome: z.enum(['ordered', 'no_change']), created_at: z.string(),
}))
