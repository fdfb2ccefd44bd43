// Shapes of the proof checker: the formula it checks against (its own declaration, the same layout as the solver's CNF).

/** Clause i is `lits[starts[i]] … lits[starts[i + 1] - 1]`, DIMACS-signed literals; clause i has id i + 1. */
export interface Formula {
  vars: number
  lits: Int32Array
  starts: Int32Array
}

export interface CheckLimits {
  /** Epoch ms after which checking stops with verdict 'incomplete'; needs `now`. */
  deadline?: number
  now?: () => number
}

export interface CheckResult {
  /** verified: the proof derives the empty clause; rejected: a step does not follow; incomplete: stopped by the deadline. */
  verdict: 'verified' | 'rejected' | 'incomplete'
  /** Proof lines (added and deleted clauses) checked before the verdict. */
  steps_checked: number
  /** Why the proof was not verified; null when it was. */
  reason: string | null
}
