// Annualisation stated and checked by hand: daily weekday bars (252 day returns a year), hourly bars with weekends
// (day returns, 365), 15-minute bars resampled to days or with the request's own periods (per-bar returns).
import { describe, expect, it } from 'vitest'
import { barAnnualization, computeStats, statsAnnualization } from './stats.js'

const DAY = 86_400_000
const HOUR = 3_600_000

/** A wandering equity curve with no zero or negative value. */
const curve = (n: number) => Float64Array.from({ length: n }, (_v, i) => 10_000 * (1 + 0.05 * Math.sin(i / 3) + 0.0007 * i + 0.01 * Math.cos(i * 1.7)))

/** Sharpe as the reference defines it from period returns r and D periods a year, computed here from scratch. */
function handSharpe(r: number[], D: number) {
  const g = Math.exp(r.reduce((s, x) => s + Math.log(1 + x), 0) / r.length) - 1
  const mean = r.reduce((s, x) => s + x, 0) / r.length
  const variance = r.reduce((s, x) => s + (x - mean) ** 2, 0) / (r.length - 1)
  const annualReturn = (1 + g) ** D - 1
  const volatility = Math.sqrt((variance + (1 + g) ** 2) ** D - (1 + g) ** (2 * D))
  return { sharpe: annualReturn / volatility, returnAnnPct: annualReturn * 100, volatilityAnnPct: volatility * 100 }
}

const stats = (ts: Float64Array, equity: Float64Array, periodsPerYear?: number) =>
  computeStats({ ts, close: equity, equity, trades: [], firstTradingBar: 0, periodsPerYear })

describe('annualisation', () => {
  it('daily weekday bars: one return a day, 252 a year', () => {
    const ts: number[] = []
    for (let t = Date.UTC(2024, 0, 1); ts.length < 60; t += DAY) if (![0, 6].includes(new Date(t).getUTCDay())) ts.push(t)
    const equity = curve(60)
    const r = Array.from({ length: 59 }, (_v, i) => equity[i + 1]! / equity[i]! - 1)
    const hand = handSharpe(r, 252)
    const got = stats(Float64Array.from(ts), equity)
    expect(got.sharpe_ratio).toBeCloseTo(hand.sharpe, 10)
    expect(got.return_ann_pct).toBeCloseTo(hand.returnAnnPct, 8)
    expect(got.volatility_ann_pct).toBeCloseTo(hand.volatilityAnnPct, 8)
    expect(statsAnnualization(Float64Array.from(ts))).toEqual({ periods_per_year: 252, basis: 'daily returns of 1d bars; weekdays only: 252 trading days a year' })
  })

  it('hourly bars every day of the week: the last equity of each UTC day, 365 a year', () => {
    const start = Date.UTC(2024, 0, 1, 0)
    const ts = Float64Array.from({ length: 24 * 20 }, (_v, i) => start + i * HOUR)
    const equity = curve(ts.length)
    const lastOfDay: number[] = []
    for (let i = 0; i < ts.length; i++) if (i === ts.length - 1 || Math.floor(ts[i + 1]! / DAY) !== Math.floor(ts[i]! / DAY)) lastOfDay.push(equity[i]!)
    expect(lastOfDay.length).toBe(20)
    const r = lastOfDay.slice(1).map((e, d) => e / lastOfDay[d]! - 1)
    expect(stats(ts, equity).sharpe_ratio).toBeCloseTo(handSharpe(r, 365).sharpe, 10)
    const stated = statsAnnualization(ts)
    expect(stated.periods_per_year).toBe(365)
    expect(stated.basis).toMatch(/^daily returns of 1h bars resampled to days .*; bars on weekends: 365 days a year$/)
    // Per-bar figures elsewhere (walk-forward, Monte Carlo) count bars: 24 a day × 365.
    expect(barAnnualization(ts)).toEqual({ periods_per_year: 24 * 365, basis: 'per-bar returns of 1h bars: 24 bars a day × 365 days (bars on weekends)' })
  })

  it('15-minute bars: resampled to days by default, per-bar returns with the request\'s periods_per_year', () => {
    const ts: number[] = []
    for (let t = Date.UTC(2024, 0, 1, 14, 30); ts.length < 26 * 15; t += 15 * 60_000) {
      const d = new Date(t)
      const minutes = d.getUTCHours() * 60 + d.getUTCMinutes()
      if (![0, 6].includes(d.getUTCDay()) && minutes >= 14 * 60 + 30 && minutes < 21 * 60) ts.push(t)
    }
    const t15 = Float64Array.from(ts)
    const equity = curve(t15.length)
    expect(statsAnnualization(t15).periods_per_year).toBe(252)
    const perYear = 26 * 252
    const r = Array.from({ length: equity.length - 1 }, (_v, i) => equity[i + 1]! / equity[i]! - 1)
    const got = stats(t15, equity, perYear)
    expect(got.sharpe_ratio).toBeCloseTo(handSharpe(r, perYear).sharpe, 10)
    expect(statsAnnualization(t15, perYear)).toEqual({ periods_per_year: perYear, basis: 'stated in the request; per-bar returns of 15m bars' })
    expect(barAnnualization(t15).periods_per_year).toBe(96 * 252)
  })
})
