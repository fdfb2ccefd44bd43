import { describe, expect, it } from 'vitest'
import { GRID_COLD_SHARE_MIN_BAR_STEPS, GRID_SHARE_MIN_BAR_STEPS, gridShares } from './grid-shares.js'

describe('gridShares', () => {
  it('gives each started idle worker a share, as long as each share is worth its cost', () => {
    expect(gridShares(1000, 2520, { warm: 2, cold: 0 })).toBe(2)
    expect(gridShares(1000, 2520, { warm: 7, cold: 0 })).toBe(Math.floor((1000 * 2520) / GRID_SHARE_MIN_BAR_STEPS))
    expect(gridShares(100, 2520, { warm: 2, cold: 0 })).toBe(1)
    expect(gridShares(1000, 2520, { warm: 0, cold: 0 })).toBe(1)
  })

  it('waits for a worker to start only for shares of enough work to repay the start', () => {
    expect(gridShares(1000, 2520, { warm: 1, cold: 1 })).toBe(1)
    const bars = Math.ceil((2 * GRID_COLD_SHARE_MIN_BAR_STEPS) / 2500)
    expect(gridShares(2500, bars, { warm: 1, cold: 1 })).toBe(2)
    expect(gridShares(2500, bars - 10, { warm: 1, cold: 1 })).toBe(1)
  })
})
