// Pure paper-trading arithmetic: risk sizing against an ATR stop, fill prices, and how a fill moves a position.

export type Direction = 'long' | 'flat' | 'short'

export interface RiskSettings {
  /** Share of equity put at risk between entry and the ATR stop, e.g. 0.01. */
  riskFraction: number
  /** Stop distance in ATRs. */
  atrMultiple: number
  /** Cap on the position's value as a share of equity, e.g. 0.25. */
  maxPositionFraction: number
  /** Commission as a fraction of traded value. */
  commission: number
  /** Adverse slippage of the fill against the reference price, in basis points. */
  slippageBps: number
  allowShort: boolean
}

export interface SizingInput {
  signal: Direction
  /** Units held now (signed). */
  currentQuantity: number
  cash: number
  equity: number
  /** The latest close: the reference price of the order. */
  price: number
  /** ATR at the latest bar. */
  atr: number
}

export interface Sizing {
  /** The position the signal asks for after risk sizing (signed whole units). */
  target_quantity: number
  current_quantity: number
  /** target − current; 0 means no order. */
  order_quantity: number
  stop_distance: number
  risk_budget: number
  units_by_risk: number
  units_cap_by_position: number
  /** For a buy: what the free cash can pay for, fill price and commission included; null for a sell. */
  units_cap_by_cash: number | null
  /** Why the target is what it is, in words. */
  reason: string
}

const sideOf = (quantity: number): Direction => (quantity > 0 ? 'long' : quantity < 0 ? 'short' : 'flat')

/**
 * Fixed-fraction sizing: units = floor(equity × riskFraction / (atrMultiple × ATR)), capped by
 * maxPositionFraction × equity / price and, for buys, by cash / (fill price × (1 + commission)).
 * A position already on the signal's side is held as it is (no rebalancing on every cycle).
 */
export function sizeOrder(input: SizingInput, risk: RiskSettings): Sizing {
  const { price, atr, equity, cash, currentQuantity } = input
  const want: Direction = input.signal === 'short' && !risk.allowShort ? 'flat' : input.signal
  const stopDistance = risk.atrMultiple * atr
  const riskBudget = Math.max(0, equity) * risk.riskFraction
  const unitsByRisk = stopDistance > 0 ? Math.floor(riskBudget / stopDistance) : 0
  const unitsCapByPosition = Math.floor((Math.max(0, equity) * risk.maxPositionFraction) / price)
  const base = { current_quantity: currentQuantity, stop_distance: stopDistance, risk_budget: riskBudget,
    units_by_risk: unitsByRisk, units_cap_by_position: unitsCapByPosition }

  if (sideOf(currentQuantity) === want) {
    return { ...base, target_quantity: currentQuantity, order_quantity: 0, units_cap_by_cash: null,
      reason: want === 'flat' ? 'flat already' : `already ${want} ${Math.abs(currentQuantity)} units: held` }
  }
  const size = Math.min(unitsByRisk, unitsCapByPosition)
  let target = want === 'long' ? size : want === 'short' ? -size : 0
  let unitsCapByCash: number | null = null
  if (target > currentQuantity) {
    // Buying: covering a short first frees nothing; the whole buy is paid from cash.
    const fill = fillPrice(price, 'buy', risk.slippageBps)
    unitsCapByCash = Math.floor(Math.max(0, cash) / (fill * (1 + risk.commission)))
    if (target - currentQuantity > unitsCapByCash) target = currentQuantity + unitsCapByCash
  }
  const reason = want === 'flat'
    ? `signal flat: close the ${sideOf(currentQuantity)} position`
    : target === 0
      ? `signal ${want}, but the risk budget buys no whole unit`
      : `signal ${want}: ${Math.abs(target)} units = min(risk ${unitsByRisk}, position cap ${unitsCapByPosition}${unitsCapByCash !== null ? `, cash cap ${unitsCapByCash}` : ''})`
  return { ...base, target_quantity: target, order_quantity: target - currentQuantity, units_cap_by_cash: unitsCapByCash, reason }
}

/** The fill price: the reference price moved against the trader by the slippage. */
export const fillPrice = (price: number, side: 'buy' | 'sell', slippageBps: number): number =>
  price * (side === 'buy' ? 1 + slippageBps / 10_000 : 1 - slippageBps / 10_000)

export interface PositionState {
  quantity: number
  avgPrice: number
  realizedPnl: number
}

/**
 * A fill of signed quantity at a price: adding to a side averages the entry price; reducing realises
 * (price − avg) × closed units × side; crossing through zero opens the remainder at the fill price.
 * Realised P&L is gross of commissions (those are in the cash ledger).
 */
export function applyFill(position: PositionState, signedQuantity: number, price: number): PositionState {
  const { quantity: q, avgPrice: p, realizedPnl } = position
  const next = q + signedQuantity
  if (q === 0 || Math.sign(q) === Math.sign(signedQuantity)) {
    const avg = (Math.abs(q) * p + Math.abs(signedQuantity) * price) / Math.abs(next)
    return { quantity: next, avgPrice: avg, realizedPnl }
  }
  const closed = Math.min(Math.abs(signedQuantity), Math.abs(q))
  const realized = realizedPnl + closed * (price - p) * Math.sign(q)
  if (next === 0) return { quantity: 0, avgPrice: 0, realizedPnl: realized }
  if (Math.sign(next) === Math.sign(q)) return { quantity: next, avgPrice: p, realizedPnl: realized }
  return { quantity: next, avgPrice: price, realizedPnl: realized }
}

/** Cash moved by a fill: a buy pays quantity × price, a sell receives it; commission is charged either way. */
export function cashFlowOf(side: 'buy' | 'sell', quantity: number, price: number, commission: number) {
  const notional = quantity * price
  return { trade: side === 'buy' ? -notional : notional, commission: -commission }
}
