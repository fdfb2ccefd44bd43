import { describe, expect, it } from 'vitest'
import { applyFill, fillPrice, sizeOrder, type RiskSettings } from './sizing.js'

const risk: RiskSettings = { riskFraction: 0.01, atrMultiple: 2, maxPositionFraction: 0.25, commission: 0.001, slippageBps: 5, allowShort: false }

describe('sizeOrder', () => {
  it('sizes a long by risk against the ATR stop when the position cap does not bind', () => {
    // risk budget 1000, stop 2 × 2.5 = 5 → 200 units; cap 25 % of 100k at 50 = 500 units
    const s = sizeOrder({ signal: 'long', currentQuantity: 0, cash: 100_000, equity: 100_000, price: 50, atr: 2.5 }, risk)
    expect(s).toMatchObject({ risk_budget: 1000, stop_distance: 5, units_by_risk: 200, units_cap_by_position: 500, target_quantity: 200, order_quantity: 200 })
  })

  it('caps by position value, then by the cash a buy can pay for', () => {
    const capped = sizeOrder({ signal: 'long', currentQuantity: 0, cash: 100_000, equity: 100_000, price: 500, atr: 1 }, risk)
    expect(capped.units_by_risk).toBe(500)
    expect(capped.units_cap_by_position).toBe(50)
    expect(capped.target_quantity).toBe(50)

    const poor = sizeOrder({ signal: 'long', currentQuantity: 0, cash: 1000, equity: 100_000, price: 50, atr: 2.5 }, risk)
    const fill = fillPrice(50, 'buy', 5)
    expect(poor.units_cap_by_cash).toBe(Math.floor(1000 / (fill * 1.001)))
    expect(poor.target_quantity).toBe(poor.units_cap_by_cash)
  })

  it('holds a position already on the signal side and closes it on flat', () => {
    const hold = sizeOrder({ signal: 'long', currentQuantity: 120, cash: 0, equity: 100_000, price: 50, atr: 2.5 }, risk)
    expect(hold.order_quantity).toBe(0)
    expect(hold.reason).toMatch(/held/)
    const exit = sizeOrder({ signal: 'flat', currentQuantity: 120, cash: 0, equity: 100_000, price: 50, atr: 2.5 }, risk)
    expect(exit).toMatchObject({ target_quantity: 0, order_quantity: -120 })
  })

  it('treats short as flat unless shorting is allowed', () => {
    const noShort = sizeOrder({ signal: 'short', currentQuantity: 0, cash: 100_000, equity: 100_000, price: 50, atr: 2.5 }, risk)
    expect(noShort.order_quantity).toBe(0)
    const short = sizeOrder({ signal: 'short', currentQuantity: 10, cash: 100_000, equity: 100_000, price: 50, atr: 2.5 }, { ...risk, allowShort: true })
    expect(short).toMatchObject({ target_quantity: -200, order_quantity: -210 })
  })
})

describe('applyFill', () => {
  it('averages entries, realises on reduction and reopens through zero at the fill price', () => {
    let p = applyFill({ quantity: 0, avgPrice: 0, realizedPnl: 0 }, 10, 100)
    p = applyFill(p, 10, 110)
    expect(p).toEqual({ quantity: 20, avgPrice: 105, realizedPnl: 0 })
    p = applyFill(p, -5, 115)
    expect(p).toEqual({ quantity: 15, avgPrice: 105, realizedPnl: 50 })
    p = applyFill(p, -25, 95)
    expect(p).toEqual({ quantity: -10, avgPrice: 95, realizedPnl: 50 - 150 })
    p = applyFill(p, 10, 90)
    expect(p).toEqual({ quantity: 0, avgPrice: 0, realizedPnl: -100 + 50 })
  })

  it('moves the fill price against the trader by the slippage', () => {
    expect(fillPrice(100, 'buy', 10)).toBeCloseTo(100.1, 12)
    expect(fillPrice(100, 'sell', 10)).toBeCloseTo(99.9, 12)
  })
})
