// Model checking against the original clauses: the last word before a SAT answer leaves the engine.
import type { Cnf } from './cnf.js'

/** Index of the first clause the model falsifies, or -1 when every clause has a true literal. model[v] ∈ {1, -1}. */
export function firstFalsifiedClause(cnf: Cnf, model: Int8Array): number {
  const { lits, starts } = cnf
  const clauseCount = starts.length - 1
  for (let c = 0; c < clauseCount; c++) {
    let satisfied = false
    for (let k = starts[c]!; k < starts[c + 1]!; k++) {
      const lit = lits[k]!
      if (lit > 0 ? model[lit] === 1 : model[-lit] === -1) {
        satisfied = true
        break
      }
    }
    if (!satisfied) return c
  }
  return -1
}

export class UnverifiedModelError extends Error {
  override name = 'UnverifiedModelError'
}

/** Throws when the model falsifies a clause: a SAT answer that fails this is a solver bug, never an answer. */
export function assertModel(cnf: Cnf, model: Int8Array): void {
  const bad = firstFalsifiedClause(cnf, model)
  if (bad >= 0) {
    const clause = Array.from(cnf.lits.subarray(cnf.starts[bad], cnf.starts[bad + 1]))
    throw new UnverifiedModelError(`solver bug: the model falsifies clause ${bad} (${clause.join(' ')} 0)`)
  }
}

/** The model as DIMACS-signed literals, one per variable 1..vars. */
export function signedModel(model: Int8Array, vars: number): number[] {
  const out = new Array<number>(vars)
  for (let v = 1; v <= vars; v++) out[v - 1] = model[v] === -1 ? -v : v
  return out
}
