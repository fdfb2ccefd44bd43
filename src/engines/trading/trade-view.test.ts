import { describe, expect, it } from 'vitest'
import { tradeView } from './trade-view.js'

// JSON.stringify keeps the members' order, which a route's answer (written by tradeSchema's order) must not depend on
// but an MCP answer written from the value does.
const text = (value: unknown) => JSON.stringify(value)

describe('the one trade view', () => {
  it('shows a closed trade: its figures as given, ISO times, not open', () => {
    const view = tradeView({
      size: -2.5, entry_bar: 0, exit_bar: 17, entry_ts: 0, exit_ts: 1_700_000_000_123, entry_price: 101.25,
      exit_price: 99.5, pnl: 4.125, return_pct: 1.5432, commissions: 0.25,
    })
    expect(text(view)).toBe(text({
      size: -2.5, entry_bar: 0, exit_bar: 17, entry_time: '1970-01-01T00:00:00.000Z', exit_time: '2023-11-14T22:13:20.123Z',
      entry_price: 101.25, exit_price: 99.5, pnl: 4.125, return_pct: 1.5432, commissions: 0.25, open: false,
    }))
  })

  it('shows an open trade: no exit, open, and null, NaN and infinite figures as the source gave them', () => {
    // Which figures are null is the source's to say (the serializer writes a null figure as 0, an infinite one as
    // null): the view neither fills nor filters them.
    const view = tradeView({
      size: null, entry_bar: 4, exit_bar: null, entry_ts: -1, exit_ts: null, entry_price: Infinity,
      exit_price: null, pnl: NaN, return_pct: -Infinity, commissions: 0,
    })
    expect(view).toStrictEqual({
      size: null, entry_bar: 4, exit_bar: null, entry_time: '1969-12-31T23:59:59.999Z', exit_time: null,
      entry_price: Infinity, exit_price: null, pnl: NaN, return_pct: -Infinity, commissions: 0, open: true,
    })
    expect(Object.keys(view)).toEqual([
      'size', 'entry_bar', 'exit_bar', 'entry_time', 'exit_time', 'entry_price', 'exit_price', 'pnl', 'return_pct', 'commissions', 'open',
    ])
  })

  it('is open by its exit bar alone, and shows an exit at epoch 0 as a time', () => {
    const view = tradeView({
      size: 1, entry_bar: 0, exit_bar: 0, entry_ts: 0, exit_ts: 0, entry_price: 1, exit_price: 1, pnl: 0, return_pct: 0, commissions: 0,
    })
    expect(view.open).toBe(false)
    expect(view.exit_bar).toBe(0)
    expect(view.exit_time).toBe('1970-01-01T00:00:00.000Z')
  })
})
