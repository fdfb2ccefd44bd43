// Bin packing: first-fit and best-fit decreasing, lower bounds, and an exact branch and bound for small inputs.

/**
 * Either identical bins of `capacity` (as many as needed) or a fixed list of `bins` (capacities, each usable once).
 * Sizes and capacities are positive numbers in any one unit.
 */
export interface PackProblem {
  sizes: readonly number[]
  capacity?: number
  bins?: readonly number[]
}

export interface Packing {
  /** Bin index per item (into `capacities`), or -1 when the item could not be placed. */
  assignment: number[]
  capacities: number[]
  loads: number[]
  bins_used: number
  unplaced: number[]
}

/** Relative slack when comparing sums of non-integer sizes, so 0.1 + 0.2 fits a bin of 0.3. */
export const FIT_TOLERANCE = 1e-9

const fits = (load: number, size: number, cap: number) => load + size <= cap * (1 + FIT_TOLERANCE)

/** The bins the algorithms may use: n identical bins (enough for any packing) or the declared list. */
function binCapacities(p: PackProblem): number[] {
  if (p.bins) return [...p.bins]
  if (p.capacity === undefined) throw new Error('a pack problem needs capacity or bins')
  return p.sizes.map(() => p.capacity!)
}

/** Item indexes, largest first (ties keep input order). */
export const decreasingOrder = (sizes: readonly number[]): number[] =>
  sizes.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b)

function finish(assignment: number[], capacities: number[], loads: number[], homogeneous: boolean): Packing {
  // Identical bins are opened lowest index first; renumbering the used ones keeps that order and reads 0..k-1.
  if (homogeneous) {
    const used = [...new Set(assignment.filter((b) => b >= 0))].sort((x, y) => x - y)
    const renumber = new Map(used.map((b, k) => [b, k]))
    const k = renumber.size
    const newLoads = new Array<number>(k).fill(0)
    const newAssignment = assignment.map((b) => (b >= 0 ? renumber.get(b)! : -1))
    for (const [old, now] of renumber) newLoads[now] = loads[old]!
    return {
      assignment: newAssignment,
      capacities: capacities.slice(0, k),
      loads: newLoads,
      bins_used: k,
      unplaced: newAssignment.flatMap((b, i) => (b < 0 ? [i] : [])),
    }
  }
  return {
    assignment,
    capacities,
    loads,
    bins_used: new Set(assignment.filter((b) => b >= 0)).size,
    unplaced: assignment.flatMap((b, i) => (b < 0 ? [i] : [])),
  }
}

function greedy(p: PackProblem, choose: (loads: number[], caps: number[], size: number) => number): Packing {
  const caps = binCapacities(p)
  const loads = caps.map(() => 0)
  const assignment = p.sizes.map(() => -1)
  for (const i of decreasingOrder(p.sizes)) {
    const b = choose(loads, caps, p.sizes[i]!)
    if (b >= 0) {
      assignment[i] = b
      loads[b]! += p.sizes[i]!
    }
  }
  return finish(assignment, caps, loads, !p.bins)
}

export function firstFitDecreasing(p: PackProblem): Packing {
  return greedy(p, (loads, caps, size) => loads.findIndex((load, b) => fits(load, size, caps[b]!)))
}

export function bestFitDecreasing(p: PackProblem): Packing {
  return greedy(p, (loads, caps, size) => {
    let best = -1
    let bestLeft = Infinity
    for (let b = 0; b < loads.length; b++) {
      if (!fits(loads[b]!, size, caps[b]!)) continue
      const left = caps[b]! - loads[b]! - size
      if (left < bestLeft) {
        best = b
        bestLeft = left
      }
    }
    return best
  })
}

export interface LowerBound {
  /** ⌈Σ sizes / capacity⌉ (identical bins) or the fewest largest bins whose capacities cover Σ sizes. */
  sum_bound: number | null
  /** Martello–Toth L2 (identical bins only; ≥ the sum bound). */
  l2_bound: number | null
  /** ⌈n / k⌉ with k the most items (the smallest ones) one bin can hold (identical bins only). */
  count_bound: number | null
  lower_bound: number | null
}

/** Martello & Toth (1990) L2: items > C−α each need a bin; items in (C/2, C−α] too, and the α..C/2 items fill gaps. */
function martelloTothL2(sizes: readonly number[], C: number): number {
  const alphas = [0, ...sizes.filter((s) => s <= C / 2)]
  let best = 0
  for (const alpha of alphas) {
    let n1 = 0
    let n2 = 0
    let sum2 = 0
    let sum3 = 0
    for (const s of sizes) {
      if (s > C - alpha) n1++
      else if (s > C / 2) {
        n2++
        sum2 += s
      } else if (s >= alpha) sum3 += s
    }
    const spill = Math.max(0, Math.ceil((sum3 - (n2 * C - sum2)) / C - FIT_TOLERANCE))
    best = Math.max(best, n1 + n2 + spill)
  }
  return best
}

export function lowerBound(p: PackProblem): LowerBound {
  const total = p.sizes.reduce((s, x) => s + x, 0)
  if (!p.bins) {
    const C = p.capacity!
    const sumBound = Math.max(0, Math.ceil(total / C - FIT_TOLERANCE))
    const l2 = martelloTothL2(p.sizes, C)
    const ascending = [...p.sizes].sort((a, b) => a - b)
    let perBin = 0
    for (let sum = 0; perBin < ascending.length && fits(sum, ascending[perBin]!, C); perBin++) sum += ascending[perBin]!
    const countBound = p.sizes.length === 0 ? 0 : perBin === 0 ? Infinity : Math.ceil(p.sizes.length / perBin)
    return { sum_bound: sumBound, l2_bound: l2, count_bound: countBound, lower_bound: Math.max(sumBound, l2, countBound) }
  }
  const caps = [...p.bins].sort((a, b) => b - a)
  let covered = 0
  for (let k = 0; k <= caps.length; k++) {
    if (covered >= total * (1 - FIT_TOLERANCE)) return { sum_bound: k, l2_bound: null, count_bound: null, lower_bound: k }
    covered += caps[k] ?? 0
  }
  return { sum_bound: null, l2_bound: null, count_bound: null, lower_bound: null }
}

export interface ExactOptions {
  /** Asked every few thousand nodes; true stops the search with the best packing so far. */
  shouldStop: () => boolean
  maxNodes: number
}

export interface ExactResult {
  packing: Packing | null
  /** True only when the search finished (or met the lower bound): nothing better exists. */
  optimal: boolean
  /** True when every item could be placed (null when the search stopped before knowing). */
  feasible: boolean | null
  nodes: number
  stopped_by: 'deadline' | 'node_limit' | null
}

export const EXACT_MAX_ITEMS = 24

/**
 * Depth-first branch and bound over items in decreasing order. Symmetry: bins with the same capacity and load are
 * interchangeable, so only the first of them is tried. Bound: open bins + the fewest unopened bins that can take what
 * the open bins cannot, by volume and by item count (a bin holds at most as many items as its smallest ones fit).
 */
export function exactPack(p: PackProblem, opts: ExactOptions): ExactResult {
  if (p.sizes.length > EXACT_MAX_ITEMS) throw new Error(`exact packing is limited to ${EXACT_MAX_ITEMS} items`)
  const homogeneous = !p.bins
  const caps = binCapacities(p)
  const order = decreasingOrder(p.sizes)
  const sizes = order.map((i) => p.sizes[i]!)
  const suffix = new Array<number>(sizes.length + 1).fill(0)
  for (let i = sizes.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + sizes[i]!
  const lb = lowerBound(p).lower_bound

  let best: Packing | null = null
  let bestCount = Infinity
  for (const h of [firstFitDecreasing(p), bestFitDecreasing(p)]) {
    if (h.unplaced.length === 0 && h.bins_used < bestCount) {
      best = h
      bestCount = h.bins_used
    }
  }
  if (best && lb !== null && bestCount === lb) {
    return { packing: best, optimal: true, feasible: true, nodes: 0, stopped_by: null }
  }

  const loads = caps.map(() => 0)
  const where = sizes.map(() => -1)
  let opened = 0
  let nodes = 0
  let stoppedBy: ExactResult['stopped_by'] = null

  // Ascending prefix sums of the remaining items sizes[i..]: how many of the smallest fit a given space.
  const smallestFitting = (i: number, space: number): number => {
    let count = 0
    let sum = 0
    for (let k = sizes.length - 1; k >= i && fits(sum, sizes[k]!, space); k--) {
      sum += sizes[k]!
      count++
    }
    return count
  }

  /** Open bins + the most unopened bins that volume or item count alone demand. */
  const bound = (i: number): number => {
    let freeVolume = 0
    let freeSlots = 0
    const unopened: number[] = []
    for (let b = 0; b < caps.length; b++) {
      if (loads[b]! > 0) {
        freeVolume += caps[b]! - loads[b]!
        freeSlots += smallestFitting(i, caps[b]! - loads[b]!)
      } else unopened.push(caps[b]!)
    }
    let volumeDeficit = suffix[i]! - freeVolume
    let extraForVolume = 0
    if (volumeDeficit > 0) {
      for (const c of [...unopened].sort((x, y) => y - x)) {
        if (volumeDeficit <= suffix[i]! * FIT_TOLERANCE) break
        volumeDeficit -= c
        extraForVolume++
      }
      if (volumeDeficit > suffix[i]! * FIT_TOLERANCE) return Infinity
    }
    let countDeficit = sizes.length - i - freeSlots
    let extraForCount = 0
    if (countDeficit > 0) {
      for (const slots of unopened.map((c) => smallestFitting(i, c)).sort((x, y) => y - x)) {
        if (countDeficit <= 0) break
        countDeficit -= slots
        extraForCount++
      }
      if (countDeficit > 0) return Infinity
    }
    return opened + Math.max(extraForVolume, extraForCount)
  }

  const search = (i: number): void => {
    if (stoppedBy) return
    nodes++
    if ((nodes & 1023) === 0) {
      if (nodes >= opts.maxNodes) stoppedBy = 'node_limit'
      else if (opts.shouldStop()) stoppedBy = 'deadline'
      if (stoppedBy) return
    }
    if (i === sizes.length) {
      if (opened < bestCount) {
        bestCount = opened
        const assignment = new Array<number>(sizes.length)
        order.forEach((item, k) => (assignment[item] = where[k]!))
        best = finish(assignment, caps, [...loads], homogeneous)
      }
      return
    }
    if (bound(i) >= bestCount) return
    const size = sizes[i]!
    const tried: Array<[number, number]> = []
    for (let b = 0; b < caps.length; b++) {
      const load = loads[b]!
      if (!fits(load, size, caps[b]!)) continue
      if (tried.some(([c, l]) => c === caps[b] && l === load)) continue
      tried.push([caps[b]!, load])
      if (load === 0) opened++
      loads[b] = load + size
      where[i] = b
      search(i + 1)
      loads[b] = load
      where[i] = -1
      if (load === 0) opened--
      if (stoppedBy || (lb !== null && bestCount <= lb)) return
    }
  }
  search(0)
  const finished = stoppedBy === null
  return {
    packing: best,
    optimal: best !== null && (finished || (lb !== null && bestCount === lb)),
    feasible: best !== null ? true : finished ? false : null,
    nodes,
    stopped_by: stoppedBy,
  }
}
