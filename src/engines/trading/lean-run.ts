// The broker of executeEvents without its by-products, for parameter sweeps: equity into a caller's buffer, the
// closed trades' P&L into another, no Trade objects, no arrays allocated — the same arithmetic, bit for bit.
import type { BacktestOptions, Bars } from './types.js'
import { pyFloorDiv } from './execution.js'

/** backtesting.py's default order size, as execution.ts has it. */
const FULL_EQUITY = 1 - 2.220446049250313e-16

/** The options a sweep applies to every configuration, resolved once. */
export interface LeanBroker {
  cash: number
  commission: number
  slip: number
  entrySpread: number
  want: number
  /** NaN: sized from cash. */
  fixedUnits: number
  allowShort: boolean
}

/** Buffers a sweep reuses for every configuration (one set per sweep). */
export interface LeanBuffers {
  /** Equity at each bar's close, as executeEvents' `equity`. */
  equity: Float64Array
  /** P&L of each closed trade in closing order, as `Trade.pnl`. */
  pnl: Float64Array
  /** The deepest drawdown of `equity` as a fraction (computeStats' max dd, worked out as the equity is written). */
  maxDrawdown: number
}

/** Two indicator lines whose strict crossovers are the events (sma_cross, ema_cross): read in the loop, no buffer. */
export interface CrossLines {
  fast: Float64Array
  slow: Float64Array
}

/** The lean path cannot reproduce the run (finalized trades, a wipe-out): the caller takes executeEvents. */
export const LEAN_UNSUPPORTED = -1

const close0 = new Float64Array(0)

export function leanBroker(options: BacktestOptions): LeanBroker | null {
  if (!(options.cash > 0)) throw new RangeError(`cash must be > 0, got ${options.cash}`)
  if (options.finalizeTrades === true) return null
  const slip = (options.slippageBps ?? 0) / 10_000
  const fixedUnits = options.size?.units
  return {
    cash: options.cash,
    commission: options.commission,
    slip,
    entrySpread: (options.spread ?? 0) + slip,
    want: fixedUnits ?? options.size?.fraction ?? FULL_EQUITY,
    fixedUnits: fixedUnits ?? NaN,
    allowShort: options.allowShort === true,
  }
}

export function leanBuffers(bars: number): LeanBuffers {
  // at most one trade closes per bar
  return { equity: new Float64Array(bars), pnl: new Float64Array(bars), maxDrawdown: 0 }
}

/**
 * executeEvents' loop (see its comment for the order of things per bar) over `source` — events, or two lines whose
 * strict crossovers (as crossEvents finds them) are the events — from `warmup + 1`, writing the equity curve, the
 * closed trades' P&L and the deepest drawdown into `out`. Returns the number of closed trades, or LEAN_UNSUPPORTED
 * when equity reaches 0 (the full broker handles the wipe-out).
 */
export function leanExecute(bars: Bars, source: Int8Array | CrossLines, warmup: number, b: LeanBroker, out: LeanBuffers): number {
  const events = source instanceof Int8Array ? source : null
  const fast = events ? close0 : (source as CrossLines).fast
  const slow = events ? close0 : (source as CrossLines).slow
  const { open, close } = bars
  const n = close.length
  const equity = out.equity
  const pnl = out.pnl
  const { commission, slip, entrySpread, want, fixedUnits, allowShort } = b
  const start = warmup + 1
  let closed = 0
  let pending = 0
  let cash = b.cash
  let size = 0
  let entryPrice = 0
  // drawdown as in positiveDrawdowns: the warm-up holds the starting cash, the first peak
  let peak = b.cash
  let low = Infinity
  let maxDd = 0
  for (let i = start; i < n; i++) {
    if (pending !== 0) {
      const price = open[i]!
      if (size !== 0) {
        const exit = slip ? price * (1 - Math.sign(size) * slip) : price
        const exitCommission = Math.abs(size) * exit * commission
        const gross = size * (exit - entryPrice)
        cash += gross - exitCommission
        pnl[closed++] = gross - (exitCommission + Math.abs(size) * entryPrice * commission) + 0
        size = 0
      }
      if (pending !== 2) {
        const adjusted = price * (1 + pending * entrySpread)
        const perUnit = adjusted + (want * price * commission) / want
        const available = Math.max(0, cash)
        const qty = fixedUnits !== fixedUnits ? Math.trunc(pyFloorDiv(available * want, perUnit)) : fixedUnits
        if (qty && !(qty * perUnit > available)) {
          size = pending * qty
          entryPrice = adjusted
          cash -= qty * adjusted * commission
        }
      }
      pending = 0
    }
    const eq = size !== 0 ? cash + size * (close[i]! - entryPrice) : cash
    if (eq <= 0) return LEAN_UNSUPPORTED
    equity[i] = eq
    if (eq >= peak) {
      if (low < peak) {
        const depth = 1 - low / peak
        if (depth > maxDd) maxDd = depth
      }
      peak = eq
      low = Infinity
    } else if (eq < low) {
      low = eq
    }
    let e: number
    if (events) {
      e = events[i]!
    } else {
      const a0 = fast[i - 1]!, b0 = slow[i - 1]!, a1 = fast[i]!, b1 = slow[i]!
      e = a0 < b0 && a1 > b1 ? 1 : b0 < a0 && b1 > a1 ? -1 : 0
    }
    if (e !== 0) pending = e > 0 ? 1 : allowShort ? -1 : 2
  }
  if (low < peak) {
    const depth = 1 - low / peak
    if (depth > maxDd) maxDd = depth
  }
  out.maxDrawdown = maxDd
  // warm-up bars carry the first recorded equity, which is the starting cash (no order can fill on the first bar)
  equity.fill(b.cash, 0, Math.min(start, n))
  return closed
}
