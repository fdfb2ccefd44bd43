// Watch lists of the CDCL solver: one Int32Array pool holding a (clause ref, blocker) segment per literal.
// One pool instead of one typed array per literal: millions of literals would otherwise cost millions of allocations.

export class WatchLists {
  /** Pairs (ref, blocker); the list of literal `lit` is `pool[start[lit] … start[lit] + size[lit])`. */
  pool: Int32Array
  readonly start: Int32Array
  readonly size: Int32Array
  readonly capacity: Int32Array
  private top = 0
  private holes = 0

  /** `expected[lit]`: how many entries literal `lit` is expected to hold at first (a sizing hint). */
  constructor(expected: Int32Array) {
    const count = expected.length
    this.start = new Int32Array(count)
    this.size = new Int32Array(count)
    this.capacity = new Int32Array(count)
    let total = 0
    for (let lit = 0; lit < count; lit++) {
      const cap = expected[lit]! > 0 ? 2 * (expected[lit]! + 1) : 0
      this.start[lit] = total
      this.capacity[lit] = cap
      total += cap
    }
    this.pool = new Int32Array(Math.max(64, total + (total >> 2)))
    this.top = total
  }

  /** Appends a pair to `lit`'s list. May reallocate `pool`: callers holding it must re-read it. */
  push(lit: number, ref: number, blocker: number): void {
    let at = this.size[lit]!
    if (at + 2 > this.capacity[lit]!) this.relocate(lit, at + 2)
    at += this.start[lit]!
    this.pool[at] = ref
    this.pool[at + 1] = blocker
    this.size[lit]! += 2
  }

  /** Moves a full list to the end of the pool with twice the room; its old segment becomes a hole. */
  private relocate(lit: number, need: number): void {
    const oldCap = this.capacity[lit]!
    const cap = Math.max(8, oldCap * 2, need)
    if (this.top + cap > this.pool.length) {
      const grown = new Int32Array(Math.max(this.pool.length * 2, this.top + cap))
      grown.set(this.pool.subarray(0, this.top))
      this.pool = grown
    }
    const from = this.start[lit]!
    this.pool.copyWithin(this.top, from, from + this.size[lit]!)
    this.start[lit] = this.top
    this.capacity[lit] = cap
    this.top += cap
    this.holes += oldCap
  }

  /** Rewrites every ref through `map` (null drops the entry). Never call it during propagation. */
  rewrite(map: (ref: number) => number | null): void {
    const pool = this.pool
    for (let lit = 0; lit < this.size.length; lit++) {
      const base = this.start[lit]!
      const end = base + this.size[lit]!
      let j = base
      for (let i = base; i < end; i += 2) {
        const moved = map(pool[i]!)
        if (moved === null) continue
        pool[j++] = moved
        pool[j++] = pool[i + 1]!
      }
      this.size[lit] = j - base
    }
    if (this.holes * 2 > this.top) this.compact()
  }

  /** Packs the lists tightly (with some room each) when holes take over half the pool. */
  private compact(): void {
    let total = 0
    for (let lit = 0; lit < this.size.length; lit++) total += this.size[lit]! === 0 ? 0 : this.size[lit]! + 4
    const fresh = new Int32Array(Math.max(64, total + (total >> 1)))
    let top = 0
    for (let lit = 0; lit < this.size.length; lit++) {
      const size = this.size[lit]!
      const from = this.start[lit]!
      fresh.set(this.pool.subarray(from, from + size), top)
      this.start[lit] = top
      this.capacity[lit] = size === 0 ? 0 : size + 4
      top += this.capacity[lit]!
    }
    this.pool = fresh
    this.top = top
    this.holes = 0
  }
}
