// Strategies: parameter schemas and the buy/sell events each one derives from indicators, without look-ahead.
import { z } from 'zod'
import type { Bars, Signal, StrategyName } from './types.js'
import { bollinger, donchian, ema, macd, rsi, sma, smaPair } from './indicators.js'

/**
 * What a strategy decides on each bar's close: `events[i]` is +1 (go long), −1 (go short, or exit a long when
 * shorting is off) or 0 (nothing). `warmup` is the bar of the slowest indicator's first defined value; acting
 * starts on the bar after it (backtesting.py: `start = 1 + _indicator_warmup_nbars`).
 * Every event closes the open trade first and then opens the new one, exactly like the reference library's
 * canonical `position.close(); self.buy()` strategy — including a repeated event in the same direction.
 */
export interface StrategyEvents {
  events: Int8Array
  warmup: number
}

/** Indicator arrays computed once per (name, period) and reused across a parameter grid. */
export type IndicatorCache = Map<string, Float64Array>

export interface StrategySpec {
  describe: string
  params: z.ZodType<Record<string, number>>
  defaults: Record<string, number>
  /** Default walk-forward / grid search values for each parameter. */
  grid: Record<string, number[]>
  /** `into`: a buffer of the bars' length to write the events into (sweeps reuse one); a fresh array without it. */
  events(bars: Bars, params: Record<string, number>, cache?: IndicatorCache, into?: Int8Array): StrategyEvents
}

const period = (def: number, max = 1000) => z.number().int().min(1).max(max).default(def)
const range = (from: number, to: number, step: number): number[] => {
  const out: number[] = []
  for (let v = from; v <= to + 1e-9; v += step) out.push(Math.round(v * 1e6) / 1e6)
  return out
}

const fastSlow = (fastDef: number, slowDef: number) =>
  z.object({ fast: period(fastDef), slow: period(slowDef) })
    .strict()
    .refine((p) => p.fast < p.slow, { message: 'fast must be smaller than slow', path: ['fast'] })

export const STRATEGIES: Record<StrategyName, StrategySpec> = {
  sma_cross: {
    describe: 'Long when SMA(fast) crosses above SMA(slow); exit (or short) when it crosses below.',
    params: fastSlow(10, 20),
    defaults: { fast: 10, slow: 20 },
    grid: { fast: range(5, 50, 5), slow: range(20, 200, 20) },
    events: (bars, p, cache, into) => {
      const [a, b] = smaLines(bars.close, p.fast!, p.slow!, cache)
      return crossEvents(a, b, into)
    },
  },
  ema_cross: {
    describe: 'Long when EMA(fast) crosses above EMA(slow); exit (or short) when it crosses below.',
    params: fastSlow(12, 26),
    defaults: { fast: 12, slow: 26 },
    grid: { fast: range(5, 50, 5), slow: range(20, 200, 20) },
    events: (bars, p, cache, into) => {
      const a = cached(cache, `ema:${p.fast}`, () => ema(bars.close, p.fast!))
      const b = cached(cache, `ema:${p.slow}`, () => ema(bars.close, p.slow!))
      return crossEvents(a, b, into)
    },
  },
  rsi_reversion: {
    describe: 'Long when RSI(period) crosses below `low` (oversold); exit (or short) when it crosses above `high`.',
    params: z.object({
      period: period(14, 500),
      low: z.number().min(1).max(99).default(30),
      high: z.number().min(1).max(99).default(70),
    }).strict().refine((p) => p.low < p.high, { message: 'low must be smaller than high', path: ['low'] }),
    defaults: { period: 14, low: 30, high: 70 },
    grid: { period: range(7, 28, 7), low: range(20, 35, 5), high: range(65, 80, 5) },
    events: (bars, p, cache, into) => {
      const r = cached(cache, `rsi:${p.period}`, () => rsi(bars.close, p.period!))
      return levelCrossEvents(r, p.low!, p.high!, into)
    },
  },
  donchian_breakout: {
    describe: 'Long when the close breaks above the previous `period`-bar high; exit (or short) below the previous low.',
    params: z.object({ period: period(20, 1000) }).strict(),
    defaults: { period: 20 },
    grid: { period: range(10, 100, 10) },
    events: (bars, p, cache, into) => {
      const n = p.period!
      const upper = cached(cache, `donchian_upper:${n}`, () => donchian(bars.high, bars.low, n).upper)
      const lower = cached(cache, `donchian_lower:${n}`, () => donchian(bars.high, bars.low, n).lower)
      const len = bars.close.length
      const events = eventsBuffer(len, into)
      // compares with the channel of the bars before this one, so the breakout bar is not in its own channel
      const warmup = Math.max(0, Math.min(n - 1, len - 1))
      let wasAbove = false
      let wasBelow = false
      for (let i = n; i < len; i++) {
        const c = bars.close[i]!
        const above = c > upper[i - 1]!
        const below = c < lower[i - 1]!
        if (above && !wasAbove) events[i] = 1
        else if (below && !wasBelow) events[i] = -1
        wasAbove = above
        wasBelow = below
      }
      return { events, warmup }
    },
  },
  bollinger_reversion: {
    describe: 'Long when the close crosses below the lower band (SMA(period) − k·σ); exit (or short) when it crosses above the upper band.',
    params: z.object({
      period: period(20, 1000),
      k: z.number().gt(0).max(10).default(2),
    }).strict(),
    defaults: { period: 20, k: 2 },
    grid: { period: range(10, 50, 10), k: range(1.5, 3, 0.5) },
    events: (bars, p, cache, into) => {
      const key = `bollinger:${p.period}:${p.k}`
      const lower = cached(cache, `${key}:lower`, () => bollinger(bars.close, p.period!, p.k!).lower)
      const upper = cached(cache, `${key}:upper`, () => bollinger(bars.close, p.period!, p.k!).upper)
      const close = bars.close
      const len = close.length
      const events = eventsBuffer(len, into)
      for (let i = 1; i < len; i++) {
        if (close[i - 1]! > lower[i - 1]! && close[i]! < lower[i]!) events[i] = 1
        else if (close[i - 1]! < upper[i - 1]! && close[i]! > upper[i]!) events[i] = -1
      }
      return { events, warmup: firstDefined(lower) }
    },
  },
  macd: {
    describe: 'Long when the MACD line (EMA(fast) − EMA(slow)) crosses above its EMA(signal); exit (or short) when it crosses below.',
    params: z.object({ fast: period(12), slow: period(26), signal: period(9, 500) })
      .strict()
      .refine((p) => p.fast < p.slow, { message: 'fast must be smaller than slow', path: ['fast'] }),
    defaults: { fast: 12, slow: 26, signal: 9 },
    grid: { fast: range(8, 16, 4), slow: range(20, 40, 10), signal: range(5, 13, 4) },
    events: (bars, p, cache, into) => {
      const key = `macd:${p.fast}:${p.slow}:${p.signal}`
      const lines = () => macd(bars.close, p.fast!, p.slow!, p.signal!)
      const line = cached(cache, `${key}:line`, () => lines().macd)
      const signal = cached(cache, `${key}:signal`, () => lines().signal)
      return crossEvents(line, signal, into)
    },
  },
  buy_and_hold: {
    describe: 'Buy on the first bar it can act on and hold to the end.',
    params: z.object({}).strict(),
    defaults: {},
    grid: {},
    events: (bars, _p, _cache, into) => {
      const events = eventsBuffer(bars.close.length, into)
      if (events.length > 1) events[1] = 1
      return { events, warmup: 0 }
    },
  },
}

export const STRATEGY_NAMES = Object.keys(STRATEGIES) as StrategyName[]

/** Validated parameters with defaults applied; throws a ZodError naming the bad field. */
export function parseStrategyParams(strategy: StrategyName, raw: Record<string, unknown>): Record<string, number> {
  const spec = STRATEGIES[strategy]
  if (!spec) throw new RangeError(`unknown strategy ${String(strategy)}`)
  return spec.params.parse(raw)
}

/** The events of a strategy for validated parameters. */
export function strategyEvents(bars: Bars, strategy: StrategyName, params: Record<string, number>, cache?: IndicatorCache, into?: Int8Array): StrategyEvents {
  return STRATEGIES[strategy].events(bars, params, cache, into)
}

/**
 * The target position after each bar's close (1 long, 0 flat, −1 short): +1 events go long, −1 events go short
 * when `allowShort`, else flat. Bars up to the warm-up hold 0.
 */
export function positionsFromEvents({ events, warmup }: StrategyEvents, allowShort: boolean): Float64Array {
  const len = events.length
  const out = new Float64Array(len)
  let pos = 0
  for (let i = warmup + 1; i < len; i++) {
    const e = events[i]!
    if (e > 0) pos = 1
    else if (e < 0) pos = allowShort ? -1 : 0
    out[i] = pos
  }
  return out
}

/** The position the strategy wants after the latest bar's close. */
export function signalOf(bars: Bars, strategy: StrategyName, params: Record<string, unknown>, allowShort = false): Signal {
  const p = parseStrategyParams(strategy, params)
  const positions = positionsFromEvents(strategyEvents(bars, strategy, p), allowShort)
  const last = positions.length ? positions[positions.length - 1]! : 0
  return last > 0 ? 'long' : last < 0 ? 'short' : 'flat'
}

/**
 * Strict crossovers: +1 where a[i−1] < b[i−1] and a[i] > b[i]; −1 the other way round (NaN compares false).
 * `into` (every element written) lets a sweep reuse one buffer for all its configurations.
 */
export function crossEvents(a: Float64Array, b: Float64Array, into?: Int8Array): StrategyEvents {
  const len = a.length
  const events = into ?? new Int8Array(len)
  if (len) events[0] = 0
  let a0 = a[0]!, b0 = b[0]!
  for (let i = 1; i < len; i++) {
    const a1 = a[i]!, b1 = b[i]!
    events[i] = a0 < b0 && a1 > b1 ? 1 : b0 < a0 && b1 > a1 ? -1 : 0
    a0 = a1
    b0 = b1
  }
  return { events, warmup: Math.max(firstDefined(a), firstDefined(b)) }
}

/** +1 where x crosses below `low`, −1 where it crosses above `high` (strict on both sides). */
function levelCrossEvents(x: Float64Array, low: number, high: number, into?: Int8Array): StrategyEvents {
  const len = x.length
  const events = eventsBuffer(len, into)
  for (let i = 1; i < len; i++) {
    const x0 = x[i - 1]!, x1 = x[i]!
    if (x0 > low && x1 < low) events[i] = 1
    else if (x0 < high && x1 > high) events[i] = -1
  }
  return { events, warmup: firstDefined(x) }
}

/** A zeroed events array: `into` cleared, or a new one. */
function eventsBuffer(len: number, into: Int8Array | undefined): Int8Array {
  return into ? into.fill(0) : new Int8Array(len)
}

/** Index of the first non-NaN value (the reference's warm-up count: numpy's argmin of isnan, so 0 when all NaN). */
export function firstDefined(values: Float64Array): number {
  for (let i = 0; i < values.length; i++) if (values[i] === values[i]) return i
  return 0
}

/** The two averages of sma_cross, through the cache; both missing: computed in one pass. */
function smaLines(close: Float64Array, fast: number, slow: number, cache: IndicatorCache | undefined): [Float64Array, Float64Array] {
  const fastKey = `sma:${fast}`
  const slowKey = `sma:${slow}`
  let a = cache?.get(fastKey)
  let b = cache?.get(slowKey)
  if (!a && !b) [a, b] = smaPair(close, fast, slow)
  a ??= sma(close, fast)
  b ??= sma(close, slow)
  cache?.set(fastKey, a).set(slowKey, b)
  return [a, b]
}

function cached(cache: IndicatorCache | undefined, key: string, make: () => Float64Array): Float64Array {
  if (!cache) return make()
  let v = cache.get(key)
  if (!v) {
    v = make()
    cache.set(key, v)
  }
  return v
}
