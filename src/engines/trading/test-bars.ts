// Test helpers: valid random OHLCV bars for property tests (imported by *.test.ts only).
import fc from 'fast-check'
import type { Bars } from './types.js'

const DAY_MS = 86_400_000

export interface BarStep {
  r: number
  gap: number
  up: number
  down: number
}

export const barStep: fc.Arbitrary<BarStep> = fc.record({
  r: fc.double({ min: -0.08, max: 0.08, noNaN: true }),
  gap: fc.double({ min: -0.02, max: 0.02, noNaN: true }),
  up: fc.double({ min: 0, max: 0.04, noNaN: true }),
  down: fc.double({ min: 0, max: 0.04, noNaN: true }),
})

/** Bars from steps: each open gaps from the previous close, high/low extend beyond open and close. */
export function barsFromSteps(steps: readonly BarStep[], s0 = 100, startTs = Date.UTC(2020, 0, 1)): Bars {
  const n = steps.length
  const bars: Bars = {
    ts: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n),
    low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n),
  }
  let prev = s0
  for (let i = 0; i < n; i++) {
    const s = steps[i]!
    const open = prev * (1 + s.gap)
    const close = open * (1 + s.r)
    bars.ts[i] = startTs + i * DAY_MS
    bars.open[i] = open
    bars.close[i] = close
    bars.high[i] = Math.max(open, close) * (1 + s.up)
    bars.low[i] = Math.min(open, close) * (1 - s.down)
    bars.volume[i] = 1000 + i
    prev = close
  }
  return bars
}

export const arbBars = (minLength: number, maxLength: number): fc.Arbitrary<Bars> =>
  fc.array(barStep, { minLength, maxLength }).map((steps) => barsFromSteps(steps))

export function sliceBars(bars: Bars, from: number, to: number): Bars {
  return {
    ts: bars.ts.slice(from, to), open: bars.open.slice(from, to), high: bars.high.slice(from, to),
    low: bars.low.slice(from, to), close: bars.close.slice(from, to), volume: bars.volume.slice(from, to),
  }
}
