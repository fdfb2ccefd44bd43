// The rows of the trading tables as the repository reads and writes them (types only: any module may import them).
import type { EquityChunk } from '../engines/trading/run-series.js'

export type DatasetSource = 'synthetic' | 'import'

export interface DatasetRow {
  id: number
  symbol: string
  timeframe: string
  source: DatasetSource
  rows: number
  first_ts: number | null
  last_ts: number | null
  sha256: string
  seed: number | null
  generator: string | null
  origin: string | null
  created_at: string
  /** JSON of the quality report made when it was stored; null for datasets stored before reports. */
  quality: string | null
}

export type NewDataset = Omit<DatasetRow, 'id' | 'rows' | 'first_ts' | 'last_ts' | 'quality'> & { quality?: string | null }

export const RUN_KINDS = ['backtest', 'simulate', 'max_edge', 'max_edge_v10', 'full_cycle_search'] as const
export type RunKind = (typeof RUN_KINDS)[number]

export interface RunRow {
  id: number
  kind: RunKind
  dataset_id: number
  strategy: string | null
  params: string
  request: string
  inputs_digest: string
  stats: string
  equity: string | null
  elapsed_ms: number
  created_at: string
  /** null for runs stored before fingerprints. */
  fingerprint: string | null
  engine_version: string | null
  /** JSON of what a report shows beyond the statistics; null for runs stored before it. */
  summary: string | null
  /** Set while its results (trades, curve chunks, trials) are being written: they count as stored once it is null. */
  results_writer: string | null
  /** When the writer last renewed its claim (epoch ms); a claim older than the lease is abandoned. */
  results_claimed_at: number | null
}

export type NewRun = Omit<RunRow, 'id'>

export type SignalValue = 'long' | 'flat' | 'short'
export type SignalOrigin = 'max-edge-signal' | 'max-edge-signal-v10' | 'full-cycle'

export interface SignalRow {
  id: number
  dataset_id: number
  strategy: string
  params: string
  signal: SignalValue
  bar_ts: number
  origin: SignalOrigin
  run_id: number | null
  created_at: string
}

export interface AccountRow {
  id: string
  currency: string
  initial_cash: number
  cash: number
  created_at: string
}

export interface PositionRow {
  account_id: string
  dataset_id: number
  symbol: string
  quantity: number
  avg_price: number
  realized_pnl: number
  updated_at: string
}

export interface CycleRow {
  id: number
  account_id: string
  dataset_id: number
  signal_id: number
  idempotency_key: string | null
  outcome: 'ordered' | 'no_change'
  created_at: string
}

export type Side = 'buy' | 'sell'

export interface OrderRow {
  id: number
  cycle_id: number
  account_id: string
  dataset_id: number
  symbol: string
  side: Side
  quantity: number
  type: 'market'
  status: 'filled'
  reference_price: number
  created_at: string
}

export interface FillRow {
  id: number
  order_id: number
  account_id: string
  dataset_id: number
  symbol: string
  side: Side
  quantity: number
  price: number
  commission: number
  slippage_bps: number
  bar_ts: number
  created_at: string
}

export interface CashEntryRow {
  id: number
  account_id: string
  kind: 'deposit' | 'trade' | 'commission'
  amount: number
  balance_after: number
  fill_id: number | null
  created_at: string
}

export interface IdempotencyRow {
  key: string
  route: string
  request_digest: string
  status_code: number
  response: string
  created_at: string
}

/** What a backtest produced beyond its statistics. */
export interface RunResults {
  /** tradeBlock(): every trade, closed then open. */
  trades: Float64Array
  equity: EquityChunk[]
  monthly: Array<{ month: string; return_pct: number }>
}

export interface TrialRow {
  strategy: string
  params: Record<string, number>
  score: number | null
  return_pct: number | null
  /** base64 of float64 (count, sum, sum of squares) per block of the trial's per-bar returns. */
  blocks: string
}

