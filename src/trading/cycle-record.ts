// Recording a paper cycle inside its transaction (every read it depends on made there too): the account (opened on first use), the signal, the cycle row, the
// filled market order with its cash entries and position, and the answer's body.
import { clientKeyOf } from './owned-keys.js'
import type { Clock } from '../sched/clock.js'
import type { Signal, StrategyName } from '../engines/trading/types.js'
import { iso } from './present.js'
import type { AccountRow, DatasetRow, TradingRepository } from './repository.js'
import { PAPER_CURRENCY, PAPER_INITIAL_CASH, type FullCycleBody } from './schemas.js'
import { applyFill, cashFlowOf, fillPrice, sizeOrder, type RiskSettings } from './sizing.js'

export interface CycleAnswer {
  status: number
  body: Record<string, unknown>
  replayed: boolean
}

export interface ChosenSignal {
  value: Signal
  strategy: StrategyName
  params: Record<string, number>
  source: 'given' | 'search'
  run_id: number | null
}

interface Bar { ts: number; close: number }
interface Position { quantity: number; avgPrice: number; realizedPnl: number }
interface FilledOrder { order: Record<string, unknown>; fill: Record<string, unknown>; cash: number; position: Position }
interface OrderPlacement {
  cycleId: number
  account: AccountRow
  dataset: DatasetRow
  bar: Bar
  /** Signed: positive buys, negative sells. */
  quantity: number
  body: FullCycleBody
  now: string
}

/**
 * Runs on the repository of the caller's transaction: the account's cash and positions are read there, so two cycles
 * on one account cannot both spend the same cash (PostgreSQL retries the one that lost, which then reads the new cash).
 */
export async function recordCycle(
  repo: TradingRepository, clock: Clock,
  body: FullCycleBody, dataset: DatasetRow, bar: Bar, atrNow: number, signal: ChosenSignal, key: string | null,
): Promise<CycleAnswer> {
  const now = iso(clock.now())
  const account = await ensureAccount(repo, body.account, now)
  const valuation = await valueAccount(repo, account, dataset.id, bar.close)
  const held = await repo.position(account.id, dataset.id)
  const risk: RiskSettings = {
    riskFraction: body.risk.fraction,
    atrMultiple: body.risk.atr_multiple,
    maxPositionFraction: body.risk.max_position_pct / 100,
    commission: body.commission,
    slippageBps: body.slippage_bps,
    allowShort: body.allow_short,
  }
  const sizing = sizeOrder({
    signal: signal.value, currentQuantity: held?.quantity ?? 0, cash: account.cash, equity: valuation.equity, price: bar.close, atr: atrNow,
  }, risk)

  const signalId = await repo.insertSignal({
    dataset_id: dataset.id, strategy: signal.strategy, params: JSON.stringify(signal.params), signal: signal.value,
    bar_ts: bar.ts, origin: 'full-cycle', run_id: signal.run_id, created_at: now,
  })
  const outcome = sizing.order_quantity === 0 ? 'no_change' : 'ordered'
  const cycleId = await repo.insertCycle({ account_id: account.id, dataset_id: dataset.id, signal_id: signalId, idempotency_key: key, outcome, created_at: now })

  const before: Position = held
    ? { quantity: held.quantity, avgPrice: held.avg_price, realizedPnl: held.realized_pnl }
    : { quantity: 0, avgPrice: 0, realizedPnl: 0 }
  const filled = sizing.order_quantity !== 0
    ? await fillOrder(repo, { cycleId, account, dataset, bar, quantity: sizing.order_quantity, body, now }, before)
    : null
  const cash = filled?.cash ?? account.cash
  const position = filled?.position ?? before
  const marketValue = position.quantity * bar.close
  const equityAfter = cash + valuation.otherMarketValue + marketValue
  return {
    status: 201,
    replayed: false,
    body: {
      cycle_id: cycleId,
      created_at: now,
      mode: 'paper',
      replayed: false,
      idempotency_key: key === null ? null : clientKeyOf(key),
      outcome,
      account: {
        id: account.id, currency: account.currency, cash_before: account.cash, cash_after: cash,
        equity_before: valuation.equity, equity_after: equityAfter,
      },
      dataset: { id: dataset.id, symbol: dataset.symbol, timeframe: dataset.timeframe, source: dataset.source },
      bar: { ts: iso(bar.ts), close: bar.close },
      signal: { id: signalId, value: signal.value, strategy: signal.strategy, params: signal.params, source: signal.source, run_id: signal.run_id },
      sizing: {
        ...sizing, equity: valuation.equity, price: bar.close, atr: atrNow, atr_period: body.risk.atr_period,
        atr_multiple: body.risk.atr_multiple, risk_fraction: body.risk.fraction, max_position_pct: body.risk.max_position_pct,
      },
      order: filled?.order ?? null,
      fill: filled?.fill ?? null,
      position: {
        quantity: position.quantity, avg_price: position.avgPrice, realized_pnl: position.realizedPnl,
        market_value: marketValue, unrealized_pnl: position.quantity * (bar.close - position.avgPrice),
      },
    },
  }
}

/** The market order a cycle places, filled at the latest close with slippage: order, fill, cash entries, position. */
async function fillOrder(repo: TradingRepository, o: OrderPlacement, held: Position): Promise<FilledOrder> {
  const { cycleId, account, dataset, bar, body, now } = o
  const side = o.quantity > 0 ? 'buy' : 'sell'
  const quantity = Math.abs(o.quantity)
  const price = fillPrice(bar.close, side, body.slippage_bps)
  const commission = quantity * price * body.commission
  const orderId = await repo.insertOrder({
    cycle_id: cycleId, account_id: account.id, dataset_id: dataset.id, symbol: dataset.symbol, side, quantity,
    type: 'market', status: 'filled', reference_price: bar.close, created_at: now,
  })
  const fillId = await repo.insertFill({
    order_id: orderId, account_id: account.id, dataset_id: dataset.id, symbol: dataset.symbol, side, quantity, price,
    commission, slippage_bps: body.slippage_bps, bar_ts: bar.ts, created_at: now,
  })
  const flow = cashFlowOf(side, quantity, price, commission)
  let cash = account.cash + flow.trade
  await repo.insertCash({ account_id: account.id, kind: 'trade', amount: flow.trade, balance_after: cash, fill_id: fillId, created_at: now })
  if (commission > 0) {
    cash += flow.commission
    await repo.insertCash({ account_id: account.id, kind: 'commission', amount: flow.commission, balance_after: cash, fill_id: fillId, created_at: now })
  }
  await repo.setCash(account.id, cash)
  const position = applyFill(held, o.quantity, price)
  await repo.upsertPosition({
    account_id: account.id, dataset_id: dataset.id, symbol: dataset.symbol, quantity: position.quantity,
    avg_price: position.avgPrice, realized_pnl: position.realizedPnl, updated_at: now,
  })
  return {
    order: { id: orderId, side, quantity, type: 'market', status: 'filled', reference_price: bar.close },
    fill: { id: fillId, side, quantity, price, slippage_bps: body.slippage_bps, commission, notional: quantity * price, bar_ts: iso(bar.ts) },
    cash,
    position,
  }
}

async function ensureAccount(repo: TradingRepository, id: string, now: string): Promise<AccountRow> {
  const existing = await repo.account(id)
  if (existing) return existing
  const account: AccountRow = { id, currency: PAPER_CURRENCY, initial_cash: PAPER_INITIAL_CASH, cash: PAPER_INITIAL_CASH, created_at: now }
  await repo.insertAccount(account)
  await repo.insertCash({ account_id: id, kind: 'deposit', amount: PAPER_INITIAL_CASH, balance_after: PAPER_INITIAL_CASH, fill_id: null, created_at: now })
  return account
}

/** Cash plus every position marked to its dataset's latest close. */
async function valueAccount(repo: TradingRepository, account: AccountRow, datasetId: number, close: number) {
  let otherMarketValue = 0
  let thisMarketValue = 0
  for (const p of await repo.positions(account.id)) {
    if (p.dataset_id === datasetId) thisMarketValue = p.quantity * close
    else otherMarketValue += p.quantity * ((await repo.lastBar(p.dataset_id))?.close ?? p.avg_price)
  }
  return { equity: account.cash + otherMarketValue + thisMarketValue, otherMarketValue }
}
