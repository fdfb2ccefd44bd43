// The statistics a parameter sweep ranks by, computed like computeStats (bit for bit) in a few passes over
// preallocated buffers: no trade objects, no beta, no durations — only what a grid row shows or sorts on.
import type { Stats } from './types.js'
import { calendarOf, type Calendar, type StatsConvention } from './stats.js'
import type { LeanBuffers } from './lean-run.js'

export const LIGHT_STATS = [
  'equity_final', 'return_pct', 'max_drawdown_pct', 'sharpe_ratio', 'sortino_ratio', 'calmar_ratio', 'trades',
  'win_rate_pct', 'sqn',
] as const satisfies readonly (keyof Stats)[]
export type LightStatName = (typeof LIGHT_STATS)[number]
export type LightStats = Pick<Stats, LightStatName>

export const isLightStat = (key: keyof Stats): key is LightStatName => (LIGHT_STATS as readonly string[]).includes(key)

/** Per-sweep state: the calendar of the timestamps and a buffer for the period returns. */
export interface LightStatsScratch {
  cal: Calendar
  periodReturns: Float64Array
}

export function lightStatsScratch(ts: Float64Array): LightStatsScratch {
  const cal = calendarOf(ts)
  return { cal, periodReturns: new Float64Array(Math.max(0, cal.bucketEnds.length - 1)) }
}

/**
 * computeStats' figures of LIGHT_STATS from a lean run (its equity curve, the closed trades' P&L `pnl[0..trades)` and
 * the deepest drawdown it tracked), with the same operations in the same order so every figure is identical.
 */
export function lightStats(run: LeanBuffers, trades: number, s: LightStatsScratch, convention: StatsConvention = '0.6.6'): LightStats {
  const { equity, pnl, maxDrawdown: maxDd } = run
  const n = equity.length

  const equityFirst = equity[0]!
  const equityLast = equity[n - 1]!
  const returnPct = ((equityLast - equityFirst) / equityFirst) * 100

  // period returns, their geometric mean (a flat period returns exactly 0 and adds log 1 = 0), sum and downside
  const ends = s.cal.bucketEnds
  const r = s.periodReturns
  const len = r.length
  let logSum = 0
  let wipedOut = false
  let sum = 0
  let downside = 0
  let prev = equity[ends[0]!]!
  for (let k = 1; k < ends.length; k++) {
    const e = equity[ends[k]!]!
    const x = e === prev ? 0 : e / prev - 1
    prev = e
    r[k - 1] = x
    sum += x
    if (x !== 0) {
      const g = 1 + (x === x ? x : 0)
      if (g <= 0) wipedOut = true
      else logSum += Math.log(g)
      if (x < 0) downside += Math.min(x, 0) ** 2
    }
  }
  const geoLen = convention === '0.6.6' ? len : len + 1
  const geo = wipedOut ? 0 : Math.exp(logSum / (geoLen || NaN)) - 1
  let variance = NaN
  if (len >= 2) {
    const m = sum / len
    let ss = 0
    for (let k = 0; k < len; k++) ss += (r[k]! - m) ** 2
    variance = ss / (len - 1)
  }
  const annualDays = s.cal.annualDays
  const annualReturn = (1 + geo) ** annualDays - 1
  const volatility = Math.sqrt((variance + (1 + geo) ** 2) ** annualDays - (1 + geo) ** (2 * annualDays)) * 100
  const sortino = annualReturn / (Math.sqrt(downside / len) * Math.sqrt(annualDays))

  // closed trades' P&L: win rate and SQN
  let wins = 0
  let plSum = 0
  for (let k = 0; k < trades; k++) {
    const v = pnl[k]!
    if (v > 0) wins++
    plSum += v
  }
  const plMean = trades ? plSum / trades : NaN
  let plStd = NaN
  if (trades >= 2) {
    let ss = 0
    for (let k = 0; k < trades; k++) ss += (pnl[k]! - plMean) ** 2
    plStd = Math.sqrt(ss / (trades - 1))
  }
  const winRate = trades ? wins / trades : NaN

  return {
    equity_final: equityLast,
    return_pct: returnPct,
    max_drawdown_pct: -maxDd * 100,
    sharpe_ratio: finite((annualReturn * 100) / (volatility || NaN)),
    sortino_ratio: finite(sortino),
    calmar_ratio: finite(annualReturn / (maxDd || NaN)),
    trades,
    win_rate_pct: finite(winRate * 100),
    sqn: finite((Math.sqrt(trades) * plMean) / (plStd || NaN)),
  }
}

function finite(v: number): number | null {
  return Number.isFinite(v) ? v : null
}
