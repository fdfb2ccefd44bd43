import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  bestFitDecreasing, exactPack, FIT_TOLERANCE, firstFitDecreasing, lowerBound, type Packing, type PackProblem,
} from './pack.js'

const never = { shouldStop: () => false, maxNodes: 50_000_000 }

/** Fewest bins over every assignment (restricted-growth strings for identical bins; all maps for a bin list). */
function bruteForce(p: PackProblem): number | null {
  const n = p.sizes.length
  const caps = p.bins ? [...p.bins] : p.sizes.map(() => p.capacity!)
  const loads = caps.map(() => 0)
  let best: number | null = null
  const go = (i: number, usedMax: number) => {
    if (i === n) {
      const used = loads.filter((l) => l > 0).length
      if (best === null || used < best) best = used
      return
    }
    const limit = p.bins ? caps.length - 1 : Math.min(usedMax + 1, caps.length - 1)
    for (let b = 0; b <= limit; b++) {
      if (loads[b]! + p.sizes[i]! > caps[b]! * (1 + FIT_TOLERANCE)) continue
      loads[b]! += p.sizes[i]!
      go(i + 1, Math.max(usedMax, b))
      loads[b]! -= p.sizes[i]!
    }
  }
  go(0, -1)
  return best
}

function expectValid(p: PackProblem, packing: Packing) {
  const loads = packing.capacities.map(() => 0)
  packing.assignment.forEach((b, i) => {
    if (b >= 0) loads[b]! += p.sizes[i]!
  })
  loads.forEach((l, b) => {
    expect(l).toBeLessThanOrEqual(packing.capacities[b]! * (1 + FIT_TOLERANCE))
    expect(l).toBeCloseTo(packing.loads[b]!, 9)
  })
  expect(packing.bins_used).toBe(loads.filter((l) => l > 0).length)
}

describe('heuristics', () => {
  it('FFD and BFD on a textbook instance', () => {
    const p = { sizes: [5, 7, 5, 2, 4, 2, 5, 1, 6], capacity: 10 }
    const ffd = firstFitDecreasing(p)
    const bfd = bestFitDecreasing(p)
    expectValid(p, ffd)
    expectValid(p, bfd)
    expect(ffd.bins_used).toBe(4)
    expect(bfd.bins_used).toBe(4)
    // 7→0, 6→1, 5→2, 5→2, 5→3, 4→1, 2→0, 2→3, 1→0
    expect(ffd.assignment).toEqual([2, 0, 2, 0, 1, 3, 3, 0, 1])
    expect(lowerBound(p).sum_bound).toBe(4)
  })

  it('best fit chooses the fullest bin that still fits', () => {
    const p = { sizes: [3], bins: [10, 4, 6] }
    expect(bestFitDecreasing(p).assignment).toEqual([1])
    expect(firstFitDecreasing(p).assignment).toEqual([0])
  })

  it('reports items no bin of a list can take', () => {
    const p = { sizes: [8, 8, 8], bins: [10, 10] }
    expect(firstFitDecreasing(p).unplaced).toEqual([2])
  })
})

describe('lower bounds', () => {
  it('⌈Σ/C⌉ and Martello–Toth L2', () => {
    // Three items over half the capacity cannot share: L2 = 3 > ⌈1.8⌉ = 2.
    const lb = lowerBound({ sizes: [6, 6, 6], capacity: 10 })
    expect(lb.sum_bound).toBe(2)
    expect(lb.l2_bound).toBe(3)
    expect(lb.lower_bound).toBe(3)
  })

  it('tolerates float sums', () => {
    expect(lowerBound({ sizes: [0.1, 0.2], capacity: 0.3 }).sum_bound).toBe(1)
    expect(firstFitDecreasing({ sizes: [0.1, 0.2], capacity: 0.3 }).bins_used).toBe(1)
  })

  it('for a bin list: the fewest largest bins that cover the total', () => {
    expect(lowerBound({ sizes: [5, 5, 5], bins: [4, 12, 3] }).lower_bound).toBe(2)
    expect(lowerBound({ sizes: [50], bins: [4, 12] }).lower_bound).toBeNull()
  })
})

describe('exact branch and bound', () => {
  it('beats FFD where FFD is not optimal', () => {
    // FFD puts both 3s together and needs 3 bins; {3,2,2} twice needs 2.
    const q = { sizes: [3, 3, 2, 2, 2, 2], capacity: 7 }
    const ffd = firstFitDecreasing(q)
    const exact = exactPack(q, never)
    expect(exact.optimal).toBe(true)
    expect(exact.packing!.bins_used).toBe(bruteForce(q))
    expect(exact.packing!.bins_used).toBeLessThan(ffd.bins_used)
    expectValid(q, exact.packing!)
  })

  it('equals brute force on random identical-bin inputs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 20, max: 30 }),
        (sizes, capacity) => {
          const p = { sizes, capacity }
          const r = exactPack(p, never)
          expect(r.optimal).toBe(true)
          expect(r.packing!.bins_used).toBe(bruteForce(p))
          expectValid(p, r.packing!)
          expect(r.packing!.bins_used).toBeGreaterThanOrEqual(lowerBound(p).lower_bound!)
          expect(firstFitDecreasing(p).bins_used).toBeGreaterThanOrEqual(r.packing!.bins_used)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('equals brute force on random bin lists, including infeasible ones', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 7 }),
        fc.array(fc.integer({ min: 3, max: 16 }), { minLength: 1, maxLength: 4 }),
        (sizes, bins) => {
          const p = { sizes, bins }
          const r = exactPack(p, never)
          const truth = bruteForce(p)
          if (truth === null) {
            expect(r.feasible).toBe(false)
            expect(r.packing).toBeNull()
          } else {
            expect(r.optimal).toBe(true)
            expect(r.packing!.bins_used).toBe(truth)
            expect(r.packing!.unplaced).toEqual([])
            expectValid(p, r.packing!)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('stops when asked and does not claim optimality it has not proven', () => {
    // A 24-item instance whose proof takes millions of nodes; the stop comes at the first check (1024 nodes).
    const sizes = [26, 37, 27, 32, 31, 42, 34, 36, 39, 28, 27, 35, 44, 30, 30, 31, 39, 37, 38, 33, 27, 27, 28, 28]
    const p = { sizes, capacity: 100 }
    const r = exactPack(p, { shouldStop: () => true, maxNodes: 50_000_000 })
    expect(r.stopped_by).toBe('deadline')
    expect(r.packing!.bins_used).toBeGreaterThan(lowerBound(p).lower_bound!)
    expect(r.optimal).toBe(false)
    expectValid(p, r.packing!)
    expect(exactPack(p, { shouldStop: () => false, maxNodes: 5000 }).stopped_by).toBe('node_limit')
  })

  it('proves optimality from the item-count bound at the root', () => {
    // Any three items exceed the capacity: 24 items need 12 bins although volume says 9.
    const p = { sizes: Array.from({ length: 24 }, (_, i) => 34 + (i % 5)), capacity: 100 }
    expect(lowerBound(p)).toMatchObject({ sum_bound: 9, count_bound: 12, lower_bound: 12 })
    const r = exactPack(p, never)
    expect(r).toMatchObject({ optimal: true, stopped_by: null })
    expect(r.packing!.bins_used).toBe(12)
  })

  it('refuses more than 24 items', () => {
    expect(() => exactPack({ sizes: new Array(25).fill(1), capacity: 10 }, never)).toThrow(/24/)
  })
})
