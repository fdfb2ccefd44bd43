// Order execution over strategy events with backtesting.py 0.6.6 broker semantics; runBacktest ties it all together.
import type { BacktestOptions, BacktestResult, Bars, StrategyName, Trade } from './types.js'
import { parseStrategyParams, positionsFromEvents, strategyEvents, type IndicatorCache, type StrategyEvents } from './strategies.js'
import { computeStats, type StatsConvention, statsAnnualization } from './stats.js'

/** backtesting.py's default order size `1 − sys.float_info.epsilon`: "all available equity", kept bit-exact. */
const FULL_EQUITY = 1 - 2.220446049250313e-16

const PENDING_NONE = 0
const PENDING_LONG = 1
const PENDING_SHORT = -1
const PENDING_CLOSE = 2

export interface Execution {
  /** Closed trades in closing order, then the trade still open at the end (if any). */
  trades: Trade[]
  closedTrades: number
  equity: Float64Array
  units: Float64Array
  cash: Float64Array
  positions: Float64Array
  startBar: number
  warmup: number
}

/**
 * Simulates the broker over precomputed events.
 *
 * Per bar i from `start = warmup + 1`, in this order (backtesting.py `Backtest.run` → `_Broker.next` → `Strategy.next`):
 * 1. the order placed on bar i−1's close fills at bar i's open: the open trade is closed first at the open
 *    (commission |size|·open·c), then the new trade is sized from the freed cash and opened at
 *    open·(1 ± spread) (commission |size|·entry·c);
 * 2. equity is recorded at the close: cash + size·(close − entry) of the open trade;
 *    equity ≤ 0 closes everything at the close and stops the run (equity 0 from there on);
 * 3. the event of bar i (seen on its close) becomes the order for bar i+1.
 * Default size: floor(equity·(1−ε) / (open·(1+spread) + open·c)) whole units (Python float floor-division); a size
 * of 0 cancels the order. Warm-up bars carry the starting cash. With `finalizeTrades` the trade still open is closed
 * at the last bar's open and an order placed on the last close is then filled at that same open (the reference's
 * "re-run the broker one last time" step).
 */
export function executeEvents(bars: Bars, strategyEventsIn: StrategyEvents, options: BacktestOptions): Execution {
  const { open, close } = bars
  const n = close.length
  const { events, warmup } = strategyEventsIn
  const allowShort = options.allowShort === true
  if (!(options.cash > 0)) throw new RangeError(`cash must be > 0, got ${options.cash}`)
  const broker = newBroker(bars, options)

  const equity = new Float64Array(n)
  const start = warmup + 1
  // units and cash change only at fills: the loop logs (bar, cash, size, entry) there and the per-bar series are
  // built from the log when someone reads them
  const log: number[] = [start, broker.cash, 0, 0]
  let pending = PENDING_NONE
  // the hot loop keeps the broker's state in locals and syncs it only around the rare fills
  let cash = broker.cash
  let size = 0
  let entryPrice = 0
  let outOfMoneyAt = -1
  for (let i = start; i < n; i++) {
    if (pending !== PENDING_NONE) {
      fill(broker, pending, i)
      pending = PENDING_NONE
      cash = broker.cash
      size = broker.size
      entryPrice = broker.entryPrice
      log.push(i, cash, size, entryPrice)
    }
    const eq = size !== 0 ? cash + size * (close[i]! - entryPrice) : cash
    equity[i] = eq
    if (eq <= 0) {
      if (size !== 0) closeTrade(broker, close[i]!, i)
      broker.cash = 0
      outOfMoneyAt = i
      break
    }
    const e = events[i]!
    if (e !== 0) pending = e > 0 ? PENDING_LONG : allowShort ? PENDING_SHORT : PENDING_CLOSE
  }

  let lastBar: { units: number; cash: number } | null = null
  if (outOfMoneyAt >= 0) {
    equity.fill(0, outOfMoneyAt)
  } else if (options.finalizeTrades === true && start < n) {
    const last = n - 1
    if (broker.size !== 0) closeTrade(broker, exitPrice(broker, open[last]!), last)
    if (pending === PENDING_LONG || pending === PENDING_SHORT) openTrade(broker, pending, last)
    const b = broker
    equity[last] = b.size !== 0 ? b.cash + b.size * (close[last]! - b.entryPrice) : b.cash
    lastBar = { units: b.size, cash: b.cash - b.size * b.entryPrice }
  }

  const closedTrades = broker.closed.length / CLOSED_FIELDS
  const stillOpen = broker.size !== 0 ? { size: broker.size, entryPrice: broker.entryPrice, entryBar: broker.entryBar } : null

  // warm-up bars: the reference back-fills the first recorded equity (the starting cash)
  const first = start < n ? equity[start]! : options.cash
  for (let i = 0; i < Math.min(start, n); i++) equity[i] = first

  const ledger: FillLog = { log, n, start, first, outOfMoneyAt, lastBar }
  const run: Execution = {
    trades: [],
    closedTrades,
    equity,
    units: EMPTY,
    cash: EMPTY,
    positions: EMPTY,
    startBar: start,
    warmup,
  }
  // Trade objects (ten fields, most of them boxed doubles) cost more than the loop: built when someone reads them
  onFirstRead(run, 'trades', () => tradesOf(bars, broker.closed, broker.commission, stillOpen))
  onFirstRead(run, 'units', () => unitsSeries(ledger))
  onFirstRead(run, 'cash', () => cashSeries(ledger))
  onFirstRead(run, 'positions', () => positionsFromEvents(strategyEventsIn, allowShort))
  return run
}

const EMPTY = new Float64Array(0)

/** Makes `key` of `target` a property computed by `make` on its first read (then a plain value, enumerable). */
export function onFirstRead<T extends object, K extends keyof T>(target: T, key: K, make: () => T[K]): void {
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value = make()
      Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: true })
      return value
    },
    set(value: T[K]) {
      Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: true })
    },
  })
}

/** What executeEvents' loop logged: (bar, cash, size, entry price) from the start and after every fill. */
interface FillLog {
  log: number[]
  n: number
  start: number
  /** The warm-up bars' cash (the first recorded equity). */
  first: number
  outOfMoneyAt: number
  /** The last bar's units and cash after finalizeTrades, when it changed them. */
  lastBar: { units: number; cash: number } | null
}

/** Units held at each bar's close: the size after the latest fill, 0 in the warm-up and after a wipe-out. */
function unitsSeries(f: FillLog): Float64Array {
  return perBar(f, (_cash, size) => size, 0, (b) => b.units)
}

/** Cash at each bar's close (cash − size · entry), the warm-up's cash before the start, 0 after a wipe-out. */
function cashSeries(f: FillLog): Float64Array {
  return perBar(f, (cash, size, entry) => cash - size * entry, f.first, (b) => b.cash)
}

function perBar(
  f: FillLog, value: (cash: number, size: number, entry: number) => number, warmupValue: number,
  lastValue: (b: { units: number; cash: number }) => number,
): Float64Array {
  const { log, n, start } = f
  const out = new Float64Array(n)
  out.fill(warmupValue, 0, Math.min(start, n))
  const end = f.outOfMoneyAt >= 0 ? f.outOfMoneyAt : n
  for (let k = 0; k < log.length; k += 4) {
    const from = log[k]!
    const to = k + 4 < log.length ? log[k + 4]! : end
    if (from < end) out.fill(value(log[k + 1]!, log[k + 2]!, log[k + 3]!), from, Math.min(to, end))
  }
  if (f.lastBar) out[n - 1] = lastValue(f.lastBar)
  return out
}

/** The broker's state: the reference's cash (realised P&L less commissions, not reduced by purchases) and one trade. */
interface Broker {
  bars: Bars
  commission: number
  slip: number
  entrySpread: number
  want: number
  fixedUnits: number | undefined
  cash: number
  size: number
  entryPrice: number
  entryBar: number
  /** Closed trades, CLOSED_FIELDS numbers each: size, entry bar, exit bar, entry price, exit price. */
  closed: number[]
}

const CLOSED_FIELDS = 5

function newBroker(bars: Bars, options: BacktestOptions): Broker {
  const slip = (options.slippageBps ?? 0) / 10_000
  const fixedUnits = options.size?.units
  return {
    bars,
    commission: options.commission,
    slip,
    entrySpread: (options.spread ?? 0) + slip,
    want: fixedUnits ?? options.size?.fraction ?? FULL_EQUITY,
    fixedUnits,
    cash: options.cash,
    size: 0,
    entryPrice: 0,
    entryBar: -1,
    closed: [],
  }
}

/** The order placed on the previous close, at this bar's open: close the open trade, then open the new one. */
function fill(b: Broker, pending: number, bar: number): void {
  if (b.size !== 0) closeTrade(b, exitPrice(b, b.bars.open[bar]!), bar)
  if (pending === PENDING_LONG || pending === PENDING_SHORT) openTrade(b, pending, bar)
}

function exitPrice(b: Broker, price: number): number {
  return b.slip ? price * (1 - Math.sign(b.size) * b.slip) : price
}

function closeTrade(b: Broker, price: number, bar: number): void {
  const { size, entryPrice, commission } = b
  const exitCommission = Math.abs(size) * price * commission
  const gross = size * (price - entryPrice)
  b.cash += gross - exitCommission
  b.closed.push(size, b.entryBar, bar, entryPrice, price)
  b.size = 0
}

/** The trades of a run: the closed ones from the broker's log, then the one still open at the end (if any). */
function tradesOf(
  bars: Bars, closed: number[], commission: number, stillOpen: { size: number; entryPrice: number; entryBar: number } | null,
): Trade[] {
  const trades: Trade[] = []
  for (let k = 0; k < closed.length; k += CLOSED_FIELDS) {
    const size = closed[k]!
    const entryBar = closed[k + 1]!
    const bar = closed[k + 2]!
    const entryPrice = closed[k + 3]!
    const price = closed[k + 4]!
    // the same operations, in the same order, as the cash update in closeTrade
    const exitCommission = Math.abs(size) * price * commission
    const gross = size * (price - entryPrice)
    const commissions = exitCommission + Math.abs(size) * entryPrice * commission
    trades.push({
      size,
      entryBar,
      exitBar: bar,
      entryPrice,
      exitPrice: price,
      entryTime: bars.ts[entryBar]!,
      exitTime: bars.ts[bar]!,
      pnl: gross - commissions + 0, // + 0 turns a -0 of a flat short into 0
      returnPct: Math.sign(size) * (price / entryPrice - 1) - commissions / (Math.abs(size) * entryPrice) + 0,
      commissions,
    })
  }
  if (stillOpen) {
    const { size, entryPrice: entry, entryBar } = stillOpen
    const last = bars.close[bars.close.length - 1]!
    trades.push({
      size,
      entryBar,
      exitBar: null,
      entryPrice: entry,
      exitPrice: null,
      entryTime: bars.ts[entryBar]!,
      exitTime: null,
      pnl: size * (last - entry) + 0,
      returnPct: Math.sign(size) * (last / entry - 1) + 0,
      commissions: Math.abs(size) * entry * commission,
    })
  }
  return trades
}

function openTrade(b: Broker, direction: number, bar: number): void {
  const price = b.bars.open[bar]!
  const adjusted = price * (1 + direction * b.entrySpread)
  const want = b.want
  const perUnit = adjusted + (want * price * b.commission) / want
  const available = Math.max(0, b.cash) // no open trade remains here, so equity = cash
  let qty: number
  if (b.fixedUnits === undefined) {
    qty = Math.trunc(pyFloorDiv(available * want, perUnit))
    if (!qty) return // "Broker canceled the relative-sized order due to insufficient margin"
  } else {
    qty = b.fixedUnits
  }
  if (qty * perUnit > available) return // not enough cash: the broker cancels the order
  b.size = direction * qty
  b.entryPrice = adjusted
  b.entryBar = bar
  b.cash -= qty * adjusted * b.commission
}

/**
 * Runs one strategy over bars. `params` are validated (and defaulted) by the strategy's schema; a ZodError is
 * thrown for bad ones. See `executeEvents` for execution and `computeStats` for every statistic.
 */
export function runBacktest(
  bars: Bars,
  strategy: StrategyName,
  params: Record<string, unknown>,
  options: BacktestOptions,
  extra: { cache?: IndicatorCache; convention?: StatsConvention } = {},
): BacktestResult {
  if (bars.close.length < 2) throw new RangeError('a backtest needs at least 2 bars')
  const p = parseStrategyParams(strategy, params)
  const ev = strategyEvents(bars, strategy, p, extra.cache)
  const run = executeEvents(bars, ev, options)
  const closed = run.trades.slice(0, run.closedTrades)
  const stats = computeStats({
    ts: bars.ts,
    close: bars.close,
    equity: run.equity,
    trades: closed,
    firstTradingBar: run.warmup,
    convention: extra.convention,
    periodsPerYear: options.periodsPerYear,
  })
  // the per-bar series beside equity are built on first read: most callers want the statistics and the equity
  const result: BacktestResult = {
    stats,
    annualization: statsAnnualization(bars.ts, options.periodsPerYear),
    trades: run.trades,
    equity: run.equity,
    drawdown: EMPTY,
    positions: EMPTY,
    units: EMPTY,
    cash: EMPTY,
    startBar: run.startBar,
  }
  onFirstRead(result, 'drawdown', () => drawdownOf(run.equity))
  onFirstRead(result, 'positions', () => run.positions)
  onFirstRead(result, 'units', () => run.units)
  onFirstRead(result, 'cash', () => run.cash)
  return result
}

function drawdownOf(equity: Float64Array): Float64Array {
  const out = new Float64Array(equity.length)
  let peak = -Infinity
  for (let i = 0; i < equity.length; i++) {
    const e = equity[i]!
    if (e > peak) peak = e
    out[i] = peak > 0 ? e / peak - 1 : 0
  }
  return out
}

/** Python's float floor division `a // b` (CPython float_divmod), which differs from Math.floor(a / b) near integers. */
export function pyFloorDiv(a: number, b: number): number {
  let mod = a % b
  let div = (a - mod) / b
  if (mod && (b < 0) !== (mod < 0)) {
    mod += b
    div -= 1
  }
  if (!div) return 0
  let floorDiv = Math.floor(div)
  if (div - floorDiv > 0.5) floorDiv += 1
  return floorDiv
}
