// Seeded synthetic OHLCV bars: geometric Brownian motion whose drift and volatility switch between regimes.
import type { Bars } from './types.js'
import { createRng, type Rng } from './prng.js'

const DAY_MS = 86_400_000

export interface Regime {
  name: string
  /** Annualised drift μ of the log-price (e.g. 0.10). */
  drift: number
  /** Annualised volatility σ (e.g. 0.20). */
  volatility: number
  /** Mean length of a stay in this regime, in bars (a switch happens with probability 1/meanBars each bar). */
  meanBars: number
}

export interface SyntheticSpec {
  seed: number
  bars: number
  startTs: number
  stepMs: number
  /** First open (default 100). */
  s0?: number
  /** `weekdays` skips Saturdays and Sundays (daily equities); `continuous` keeps every step (FX, crypto). */
  calendar?: 'weekdays' | 'continuous'
  regimes?: Regime[]
  /** Base volume per bar (default 1e6). */
  volume?: number
}

export const DEFAULT_REGIMES: Regime[] = [
  { name: 'bull', drift: 0.18, volatility: 0.16, meanBars: 250 },
  { name: 'bear', drift: -0.22, volatility: 0.32, meanBars: 90 },
  { name: 'sideways', drift: 0.0, volatility: 0.12, meanBars: 160 },
]

/** The seeded datasets a fresh platform starts with (SPEC §3.1): never presented as market data. */
export const SYNTHETIC_PRESETS = {
  daily10y: {
    symbol: 'SYN-DAILY',
    timeframe: '1d',
    spec: { seed: 20_240_601, bars: 2610, startTs: Date.UTC(2015, 0, 1), stepMs: DAY_MS, s0: 100, calendar: 'weekdays' },
  },
  intraday100k: {
    symbol: 'SYN-15M',
    timeframe: '15m',
    spec: { seed: 20_240_602, bars: 100_000, startTs: Date.UTC(2022, 0, 3), stepMs: 15 * 60_000, s0: 1.1, calendar: 'continuous' },
  },
} as const satisfies Record<string, { symbol: string; timeframe: string; spec: SyntheticSpec }>

/**
 * Bars from a regime-switching GBM. Per bar: log return (μ − σ²/2)·dt + σ·√dt·Z with dt = 1 / bars per year
 * (252 trading days for `weekdays`, 365 otherwise, times bars per day); the open gaps from the previous close by a
 * tenth of that noise; high and low extend beyond max/min(open, close) by half-normal excursions, so
 * low ≤ open, close ≤ high always holds. Same spec, same bars.
 */
export function generateSyntheticBars(spec: SyntheticSpec): Bars {
  const n = spec.bars
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`bars must be a positive integer, got ${n}`)
  if (!(spec.stepMs > 0)) throw new RangeError(`stepMs must be > 0, got ${spec.stepMs}`)
  const regimes = spec.regimes?.length ? spec.regimes : DEFAULT_REGIMES
  const calendar = spec.calendar ?? 'continuous'
  const rng = createRng(spec.seed)
  const perYear = (calendar === 'weekdays' ? 252 : 365) * Math.max(1, DAY_MS / spec.stepMs)
  const dt = 1 / perYear
  const baseVolume = spec.volume ?? 1e6

  const bars: Bars = {
    ts: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n),
    low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n),
  }
  let t = spec.startTs
  let prevClose = spec.s0 ?? 100
  let regime = rng.int(regimes.length)
  for (let i = 0; i < n; i++) {
    if (calendar === 'weekdays') t = nextWeekday(t)
    const r = regimes[regime]!
    if (regimes.length > 1 && rng.next() < 1 / Math.max(1, r.meanBars)) {
      regime = (regime + 1 + rng.int(regimes.length - 1)) % regimes.length
    }
    const bar = nextBar(rng, prevClose, r.drift, r.volatility, dt)
    bars.ts[i] = t
    bars.open[i] = bar.open
    bars.high[i] = bar.high
    bars.low[i] = bar.low
    bars.close[i] = bar.close
    bars.volume[i] = Math.round(baseVolume * Math.exp(0.3 * rng.normal()) * (1 + 20 * Math.abs(Math.log(bar.close / bar.open))))
    prevClose = bar.close
    t += spec.stepMs
  }
  return bars
}

/** One GBM bar after `prevClose` (shared with the Monte Carlo `gbm` method). */
export function nextBar(rng: Rng, prevClose: number, drift: number, volatility: number, dt: number): { open: number; high: number; low: number; close: number } {
  const sd = volatility * Math.sqrt(dt)
  const open = prevClose * Math.exp(0.1 * sd * rng.normal())
  const close = open * Math.exp((drift - (volatility * volatility) / 2) * dt + sd * rng.normal())
  const high = Math.max(open, close) * Math.exp(0.5 * sd * Math.abs(rng.normal()))
  const low = Math.min(open, close) * Math.exp(-0.5 * sd * Math.abs(rng.normal()))
  return { open, high, low, close }
}

function nextWeekday(t: number): number {
  for (let guard = 0; guard < 3; guard++) {
    const dow = ((((Math.floor(t / DAY_MS) + 3) % 7) + 7) % 7) // Monday = 0
    if (dow < 5) return t
    t += DAY_MS
  }
  return t
}
