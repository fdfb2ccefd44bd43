// Clauses by id for the LRAT checker: literals in one growing array, each id's range in two more, deletions marked.

export interface ClauseRange {
  lits: Int32Array
  from: number
  to: number
}

/** The largest clause id the table takes (ids index arrays here). */
export const MAX_CLAUSE_ID = 1 << 28

export class ClauseTable {
  private lits = new Int32Array(1024)
  private top = 0
  private from = new Int32Array(1024).fill(-1)
  private to = new Int32Array(1024)
  private readonly view: ClauseRange = { lits: this.lits, from: 0, to: 0 }

  static ofFormula(formula: { lits: Int32Array; starts: Int32Array }): ClauseTable {
    const table = new ClauseTable()
    const count = formula.starts.length - 1
    for (let c = 0; c < count; c++) table.add(c + 1, formula.lits.subarray(formula.starts[c], formula.starts[c + 1]))
    return table
  }

  has(id: number): boolean {
    return id < this.from.length && this.from[id]! >= 0
  }

  /** The clause's literals as a range of a shared array (valid until the next add). */
  get(id: number): ClauseRange | null {
    if (!this.has(id)) return null
    this.view.lits = this.lits
    this.view.from = this.from[id]!
    this.view.to = this.to[id]!
    return this.view
  }

  add(id: number, clause: ArrayLike<number>): void {
    if (id >= MAX_CLAUSE_ID) throw new RangeError(`clause id ${id} is over ${MAX_CLAUSE_ID}`)
    if (id >= this.from.length) {
      let size = this.from.length
      while (size <= id) size *= 2
      const from = new Int32Array(size).fill(-1)
      from.set(this.from)
      const to = new Int32Array(size)
      to.set(this.to)
      this.from = from
      this.to = to
    }
    if (this.top + clause.length > this.lits.length) {
      const grown = new Int32Array(Math.max(this.top + clause.length, this.lits.length * 2))
      grown.set(this.lits.subarray(0, this.top))
      this.lits = grown
    }
    this.from[id] = this.top
    for (let k = 0; k < clause.length; k++) this.lits[this.top++] = clause[k]!
    this.to[id] = this.top
  }

  /** False when there is no such clause. Its literals stay in the array (a proof's deletions do not compact it). */
  delete(id: number): boolean {
    if (!this.has(id)) return false
    this.from[id] = -1
    return true
  }
}
