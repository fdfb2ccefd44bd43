// The last step of a SAT task: an UNSAT answer's proof is checked by the independent checker under the task's deadline,
// and the answer says what was verified, by which checker, and why not when it was not.
import { createHash } from 'node:crypto'
import type { SatAnswer, Solved } from '../../engines/sat/answer.js'
import { toDimacs } from '../../engines/sat/dimacs.js'
import type { Cnf } from '../../engines/sat/cnf.js'
import { CHECK_METHODS, CHECKER, checkProof } from '../../engines/proof-check/index.js'

/** A text to store as a pin (a proof, a CNF): its bytes, moved back to the loop, and their SHA-256 (hex). */
export interface TextBlob {
  text: Uint8Array
  bytes: number
  sha256: string
}

export interface ProofBlob extends TextBlob {
  format: 'drat' | 'lrat'
  steps: number
}

export interface CheckerReport {
  name: string
  version: string
  format: 'drat' | 'lrat'
  method: string
  steps_checked: number
}

export type CheckedAnswer<A extends SatAnswer> = Omit<A, 'stats'> & {
  stats: A['stats'] & { check_ms: number | null }
  /** The proof check that ran on an UNSAT answer (verified or not); null when none ran. */
  checker: CheckerReport | null
  /** Why `verified` is false; null when it is true. */
  verification: { reason: string } | null
  proof: ProofBlob | null
}

const blobOf = (text: Uint8Array): TextBlob => ({ text, bytes: text.byteLength, sha256: createHash('sha256').update(text).digest('hex') })

export function cnfBlob(cnf: Cnf): TextBlob {
  return blobOf(new Uint8Array(Buffer.from(toDimacs(cnf), 'latin1')))
}

export function checkedAnswer<A extends SatAnswer>(solved: Solved<A>, deadline: number, now: () => number): CheckedAnswer<A> {
  const { answer, proof } = solved
  const unchecked = (reason: string | null): CheckedAnswer<A> => ({
    ...answer,
    stats: { ...answer.stats, check_ms: null },
    checker: null,
    verification: reason === null ? null : { reason },
    proof: null,
  })
  if (answer.status === 'SAT') return unchecked(null)
  if (answer.status === 'UNKNOWN') {
    return unchecked(`the search stopped (${answer.stopped_by ?? 'cancelled'}) before an answer: there is nothing to verify`)
  }
  if (!proof) return unchecked('UNSAT without a proof is the solver\'s claim: ask for proof "lrat" or "drat" to have it checked')
  if (!proof.bytes) {
    return unchecked(`the proof grew past its limit of ${proof.maxBytes} bytes and was dropped: the UNSAT answer is unchecked`)
  }
  const started = now()
  const result = checkProof(proof.format, proof.formula, proof.bytes, { deadline, now })
  const checkMs = now() - started
  const reasons = {
    verified: null,
    incomplete: `checking stopped at the deadline after ${result.steps_checked} of ${proof.steps} proof steps: the proof is stored unchecked`,
    rejected: `the checker rejected the solver's proof (${result.reason}): the UNSAT answer is unverified`,
  }
  const reason = reasons[result.verdict]
  return {
    ...answer,
    verified: result.verdict === 'verified',
    stats: { ...answer.stats, time_ms: answer.stats.time_ms + checkMs, check_ms: checkMs },
    checker: { ...CHECKER, format: proof.format, method: CHECK_METHODS[proof.format], steps_checked: result.steps_checked },
    verification: reason === null ? null : { reason },
    proof: { ...blobOf(proof.bytes), format: proof.format, steps: proof.steps },
  }
}
