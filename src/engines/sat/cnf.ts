// The flat CNF shape every SAT module shares: one Int32Array of literals and clause offsets into it.

/** Clause i is `lits[starts[i]] … lits[starts[i + 1] - 1]`, DIMACS-signed literals (never 0). */
export interface Cnf {
  vars: number
  lits: Int32Array
  starts: Int32Array
}

export const clauseCountOf = (cnf: Cnf): number => cnf.starts.length - 1

export function clauseAt(cnf: Cnf, index: number): number[] {
  return Array.from(cnf.lits.subarray(cnf.starts[index], cnf.starts[index + 1]))
}

/** Builds a Cnf from clause arrays; `vars` defaults to the largest variable used. */
export function cnfFromClauses(clauses: ReadonlyArray<ReadonlyArray<number>>, vars?: number): Cnf {
  let total = 0
  for (const clause of clauses) total += clause.length
  const lits = new Int32Array(total)
  const starts = new Int32Array(clauses.length + 1)
  let at = 0
  let maxVar = 0
  clauses.forEach((clause, i) => {
    starts[i] = at
    for (const lit of clause) {
      lits[at++] = lit
      const v = lit < 0 ? -lit : lit
      if (v > maxVar) maxVar = v
    }
  })
  starts[clauses.length] = at
  return { vars: vars ?? maxVar, lits, starts }
}

export function clausesOf(cnf: Cnf): number[][] {
  const out: number[][] = []
  for (let i = 0; i < clauseCountOf(cnf); i++) out.push(clauseAt(cnf, i))
  return out
}

/** A growable Int32Array: the builders of literal and offset arrays use it to avoid boxed JS arrays. */
export class IntBuffer {
  data: Int32Array
  length = 0

  constructor(capacity = 1024) {
    this.data = new Int32Array(Math.max(16, capacity))
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow()
    this.data[this.length++] = value
  }

  private grow(): void {
    const next = new Int32Array(this.data.length * 2)
    next.set(this.data)
    this.data = next
  }

  /** A right-sized copy of the contents. */
  toArray(): Int32Array {
    return this.data.slice(0, this.length)
  }
}
