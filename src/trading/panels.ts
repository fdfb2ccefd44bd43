// The command center's panels: one read of storage and live state, shared by the JSON route and the HTML page.
import { z } from 'zod'

export const positionPanelSchema = z.object({
  account: z.object({
    id: z.string(),
    currency: z.string(),
    initial_cash: z.number(),
    cash: z.number(),
    market_value: z.number(),
    equity: z.number(),
    realized_pnl: z.number(),
    unrealized_pnl: z.number(),
    total_pnl: z.number(),
    total_return_pct: z.number(),
  }).nullable(),
  positions: z.array(z.object({
    dataset_id: z.number().int(),
    symbol: z.string(),
    quantity: z.number(),
    avg_price: z.number(),
    last_price: z.number().nullable(),
    last_bar_ts: z.string().nullable(),
    market_value: z.number().nullable(),
    unrealized_pnl: z.number().nullable(),
    realized_pnl: z.number(),
    updated_at: z.string(),
  })),
})

export const signalPanelItemSchema = z.object({
  id: z.number().int(),
  dataset_id: z.number().int(),
  symbol: z.string(),
  timeframe: z.string(),
  strategy: z.string(),
  params: z.record(z.string(), z.unknown()),
  signal: z.enum(['long', 'flat', 'short']),
  bar_ts: z.string(),
  origin: z.string(),
  run_id: z.number().int().nullable(),
  created_at: z.string(),
})

export const runPanelItemSchema = z.object({
  id: z.number().int(),
  kind: z.string(),
  dataset_id: z.number().int(),
  symbol: z.string().nullable(),
  strategy: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  headline: z.record(z.string(), z.number().nullable()),
  inputs_digest: z.string(),
  elapsed_ms: z.number(),
  created_at: z.string(),
})

export const equityPanelSchema = z.object({
  run_id: z.number().int(),
  dataset_id: z.number().int(),
  symbol: z.string().nullable(),
  strategy: z.string().nullable(),
  return_pct: z.number().nullable(),
  points: z.array(z.tuple([z.number(), z.number()])).describe('[epoch ms, equity] pairs, downsampled'),
}).nullable()

export type PositionPanel = z.infer<typeof positionPanelSchema>
export type SignalPanelItem = z.infer<typeof signalPanelItemSchema>
export type RunPanelItem = z.infer<typeof runPanelItemSchema>
export type EquityPanel = z.infer<typeof equityPanelSchema>
