// Decision order of the CDCL solver: EVSIDS activities in a binary max-heap of variables.

const RESCALE_LIMIT = 1e100

export class VarOrder {
  readonly activity: Float64Array
  private increment = 1
  private readonly heap: Int32Array
  private readonly index: Int32Array
  private size = 0

  constructor(
    private readonly vars: number,
    private readonly decay: number,
  ) {
    this.activity = new Float64Array(vars + 1)
    this.heap = new Int32Array(vars + 1)
    this.index = new Int32Array(vars + 1).fill(-1)
    // Equal activities: the heap is valid in any order, so no sifting is needed.
    for (let v = 1; v <= vars; v++) {
      this.heap[this.size] = v
      this.index[v] = this.size++
    }
  }

  /** Sets starting activities (tie-breakers, far below one bump) and rebuilds the heap from them. */
  seed(initial: Float64Array): void {
    for (let v = 1; v <= this.vars; v++) this.activity[v] = initial[v]!
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.siftDown(i)
  }

  get isEmpty(): boolean {
    return this.size === 0
  }

  contains(v: number): boolean {
    return this.index[v]! >= 0
  }

  bump(v: number): void {
    const activity = this.activity
    activity[v]! += this.increment
    if (activity[v]! > RESCALE_LIMIT) {
      for (let u = 1; u <= this.vars; u++) activity[u]! *= 1 / RESCALE_LIMIT
      this.increment *= 1 / RESCALE_LIMIT
    }
    const at = this.index[v]!
    if (at >= 0) this.siftUp(at)
  }

  /** Exponential VSIDS: instead of decaying every activity, later bumps count more. */
  decayAll(): void {
    this.increment /= this.decay
  }

  insert(v: number): void {
    if (this.index[v]! >= 0) return
    this.heap[this.size] = v
    this.index[v] = this.size
    this.siftUp(this.size++)
  }

  /** Removes and returns the most active variable. */
  pop(): number {
    const heap = this.heap
    const top = heap[0]!
    const last = heap[--this.size]!
    this.index[top] = -1
    if (this.size > 0) {
      heap[0] = last
      this.index[last] = 0
      this.siftDown(0)
    }
    return top
  }

  private siftUp(from: number): void {
    const heap = this.heap
    const index = this.index
    const activity = this.activity
    const v = heap[from]!
    const act = activity[v]!
    let i = from
    while (i > 0) {
      const parent = (i - 1) >> 1
      const pv = heap[parent]!
      if (activity[pv]! >= act) break
      heap[i] = pv
      index[pv] = i
      i = parent
    }
    heap[i] = v
    index[v] = i
  }

  private siftDown(from: number): void {
    const heap = this.heap
    const index = this.index
    const activity = this.activity
    const size = this.size
    const v = heap[from]!
    const act = activity[v]!
    let i = from
    for (;;) {
      let child = 2 * i + 1
      if (child >= size) break
      const right = child + 1
      if (right < size && activity[heap[right]!]! > activity[heap[child]!]!) child = right
      const cv = heap[child]!
      if (activity[cv]! <= act) break
      heap[i] = cv
      index[cv] = i
      i = child
    }
    heap[i] = v
    index[v] = i
  }
}
