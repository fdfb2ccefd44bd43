// The proof checker of UNSAT answers. It shares no code with the solver (its own tokenizer, clause store and unit
// propagation; .dependency-cruiser.cjs forbids imports between them), so a solver bug cannot pass its own proof.
import { checkDrat } from './drat.js'
import { checkLrat } from './lrat.js'
import type { CheckLimits, CheckResult, Formula } from './types.js'

export type { CheckLimits, CheckResult, Formula } from './types.js'

export const CHECKER = { name: 'ncm-proof-check', version: '1.0.0' } as const

/** How each format is checked, for answers and docs. */
export const CHECK_METHODS = {
  lrat: 'LRAT: each lemma by unit propagation over its hints in order (RUP hints only; negative RAT hints are refused)',
  drat: 'DRAT, forward: each lemma by reverse unit propagation, else RAT on its first literal; unit and reason deletions ignored',
} as const

export function checkProof(format: 'drat' | 'lrat', formula: Formula, proof: Uint8Array, limits: CheckLimits = {}): CheckResult {
  return format === 'lrat' ? checkLrat(formula, proof, limits) : checkDrat(formula, proof, limits)
}
