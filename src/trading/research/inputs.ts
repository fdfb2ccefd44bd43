// Reading a research body: strategy parameters, cost settings, date range and the bars it needs, refused with reasons.
import { z } from 'zod'
import { parseStrategyParams, STRATEGIES } from '../../engines/trading/index.js'
import type { BacktestOptions, Bars, StrategyName } from '../../engines/trading/types.js'
import { Refusal, issuesFromZod } from '../../http/refusal.js'
import type { DatasetRow } from '../repository.js'

export function strategyParamsOf(strategy: StrategyName, raw: Record<string, unknown>): Record<string, number> {
  try {
    return parseStrategyParams(strategy, raw)
  } catch (err) {
    if (err instanceof z.ZodError) {
      const issues = issuesFromZod(err, 'params')
      throw new Refusal('invalid_input', `params of ${strategy} are invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
        issues,
        hints: { defaults: STRATEGIES[strategy].defaults },
      })
    }
    throw err
  }
}

export interface CostBody {
  cash: number
  commission: number
  spread?: number | undefined
  slippage_bps?: number | undefined
  allow_short: boolean
  finalize_trades?: boolean
  size?: { fraction: number } | { units: number } | undefined
  periods_per_year?: number | undefined
}

export function optionsOf(body: CostBody): BacktestOptions {
  const options: BacktestOptions = { cash: body.cash, commission: body.commission, allowShort: body.allow_short }
  if (body.spread !== undefined) options.spread = body.spread
  if (body.slippage_bps !== undefined) options.slippageBps = body.slippage_bps
  if (body.finalize_trades) options.finalizeTrades = true
  if (body.size) options.size = body.size
  if (body.periods_per_year !== undefined) options.periodsPerYear = body.periods_per_year
  return options
}

export function settingsOf(body: CostBody) {
  return {
    cash: body.cash,
    commission: body.commission,
    spread: body.spread ?? 0,
    slippage_bps: body.slippage_bps ?? 0,
    allow_short: body.allow_short,
    finalize_trades: body.finalize_trades ?? false,
    size: body.size ?? null,
    // Only when stated, so the digests of runs that never stated it stay as they were.
    ...(body.periods_per_year !== undefined ? { periods_per_year: body.periods_per_year } : {}),
  }
}

export function rangeOf(from: number | string | undefined, to: number | string | undefined): { from: number; to: number } | null {
  if (from === undefined && to === undefined) return null
  const parse = (value: number | string | undefined, name: string, fallback: number): number => {
    if (value === undefined) return fallback
    const ms = typeof value === 'number' ? value : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
    if (!Number.isFinite(ms)) throw new Refusal('invalid_input', `${name} ${JSON.stringify(value)} is not a date`, { issues: [{ path: name, message: 'not an ISO 8601 date/time or epoch ms' }] })
    return ms
  }
  const range = { from: parse(from, 'from', Number.MIN_SAFE_INTEGER), to: parse(to, 'to', Number.MAX_SAFE_INTEGER) }
  if (range.from > range.to) throw new Refusal('invalid_input', 'from is after to', { issues: [{ path: 'from', message: 'must not be after to' }] })
  return range
}

export function needBars(bars: Bars, min: number, dataset: DatasetRow, range: { from: number; to: number } | null): void {
  if (bars.ts.length >= min) return
  const where = range ? ' in the requested range' : ''
  throw new Refusal('invalid_input', `dataset #${dataset.id} (${dataset.symbol}) has ${bars.ts.length} bars${where}; at least ${min} are needed`)
}

export const briefOf = (d: DatasetRow) => ({ id: d.id, symbol: d.symbol, timeframe: d.timeframe, source: d.source })
