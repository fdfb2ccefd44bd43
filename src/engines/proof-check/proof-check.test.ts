// The checker on hand-written proofs: what it accepts, and each way a step can fail.
import { describe, expect, it } from 'vitest'
import { checkProof, type Formula } from './index.js'

/** (1 ∨ 2) (¬1 ∨ 2) (1 ∨ ¬2) (¬1 ∨ ¬2), clauses 1–4, and an unused variable 3. */
const XOR: Formula = {
  vars: 3,
  lits: Int32Array.of(1, 2, -1, 2, 1, -2, -1, -2),
  starts: Int32Array.of(0, 2, 4, 6, 8),
}

const check = (format: 'drat' | 'lrat', proof: string, limits = {}) => checkProof(format, XOR, new TextEncoder().encode(proof), limits)

describe('LRAT', () => {
  it('accepts lemmas whose hints become unit in order and end in a conflict, up to the empty clause', () => {
    expect(check('lrat', '5 1 0 1 3 0\n6 0 5 2 4 0\n')).toEqual({ verdict: 'verified', steps_checked: 2, reason: null })
    expect(check('lrat', 'c a comment\n5 1 0 1 3 0\n5 d 1 3 0\n6 0 5 2 4 0\n')).toMatchObject({ verdict: 'verified', steps_checked: 3 })
  })

  it.each([
    ['hints that reach no conflict', '5 1 0 3 0\n', /reach no conflict/],
    ['a hint already satisfied', '5 1 0 2 0\n', /already satisfied/],
    ['a hint with two open literals', '5 3 0 1 0\n', /not unit/],
    ['a hint naming no clause', '5 1 0 9 0\n', /names no clause/],
    ['a hint to a deleted clause', '5 d 1 0\n6 1 0 1 3 0\n', /names no clause/],
    ['a RAT hint', '5 1 0 -2 0\n', /RAT hints are not checked/],
    ['an id in use', '3 1 0 1 3 0\n', /already in use/],
    ['no empty clause', '5 1 0 1 3 0\n', /without deriving the empty clause/],
    ['a literal outside the formula', '5 7 0 1 0\n', /outside the formula's 3 variables/],
    ['a deletion of an unknown clause', '5 d 9 0\n', /not there/],
    ['text that is not a proof', '5 1 x 0\n', /line 1: expected a number/],
  ])('rejects %s', (_what, proof, reason) => {
    const result = check('lrat', proof)
    expect(result.verdict).toBe('rejected')
    expect(result.reason).toMatch(reason)
  })
})

describe('DRAT', () => {
  it('accepts RUP lemmas, and a lemma that is RAT only', () => {
    expect(check('drat', '1 0\n0\n')).toEqual({ verdict: 'verified', steps_checked: 2, reason: null })
    // (3) is not RUP (3 occurs nowhere) but RAT on 3: no clause holds ¬3.
    expect(check('drat', '3 0\nd 3 0\n1 0\n0\n')).toMatchObject({ verdict: 'verified', steps_checked: 4 })
  })

  it.each([
    ['a lemma neither RUP nor RAT', '3 0\n-3 0\n0\n', /-3 0 is neither RUP nor RAT/],
    ['the empty clause too early', '0\n', /0 is neither RUP nor RAT/],
    ['a deletion of a clause that is not there', 'd 1 3 0\n', /not there/],
    ['no empty clause', '1 0\n', /without deriving the empty clause/],
    ['a literal outside the formula', '4 0\n', /outside the formula's 3 variables/],
  ])('rejects %s', (_what, proof, reason) => {
    const result = check('drat', proof)
    expect(result.verdict).toBe('rejected')
    expect(result.reason).toMatch(reason)
  })
})

it('stops at the deadline with verdict incomplete, for both formats', () => {
  expect(check('lrat', '5 1 0 1 3 0\n6 0 5 2 4 0\n', { deadline: 10, now: () => 11 })).toMatchObject({ verdict: 'incomplete', steps_checked: 0 })
  expect(check('drat', '1 0\n0\n', { deadline: 10, now: () => 11 })).toMatchObject({ verdict: 'incomplete', steps_checked: 0 })
})
