import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { evaluateFormula, parseFormula } from './formula.js'
import { tseitin } from './tseitin.js'
import { solveCnf } from './cdcl.js'
import { firstFalsifiedClause } from './verify.js'
import type { Cnf } from './cnf.js'

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f']

/** Random formulas over up to six names, every operator of the language included. */
const formulaArb = fc.letrec<{ f: unknown }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...NAMES).map((name) => ({ var: name })),
    fc.constantFrom(true, false),
    tie('f').map((f) => ({ not: f })),
    fc.array(tie('f'), { maxLength: 4 }).map((fs) => ({ and: fs })),
    fc.array(tie('f'), { maxLength: 4 }).map((fs) => ({ or: fs })),
    fc.array(tie('f'), { maxLength: 4 }).map((fs) => ({ xor: fs })),
    fc.tuple(tie('f'), tie('f')).map((fs) => ({ implies: fs })),
    fc.tuple(tie('f'), tie('f')).map((fs) => ({ iff: fs })),
    fc.record({ k: fc.nat(5), of: fc.array(tie('f'), { maxLength: 5 }) }).map((body) => ({ atMost: body })),
    fc.record({ k: fc.nat(5), of: fc.array(tie('f'), { maxLength: 5 }) }).map((body) => ({ atLeast: body })),
    fc.record({ k: fc.nat(5), of: fc.array(tie('f'), { maxLength: 5 }) }).map((body) => ({ exactly: body })),
  ),
})).f

/** The CNF with the named variables fixed to an assignment by unit clauses. */
function withUnits(cnf: Cnf, values: Int8Array): Cnf {
  const units = Array.from(values, (v, i) => (v === 1 ? i + 1 : -(i + 1)))
  const lits = new Int32Array(cnf.lits.length + units.length)
  lits.set(cnf.lits)
  lits.set(units, cnf.lits.length)
  const starts = new Int32Array(cnf.starts.length + units.length)
  starts.set(cnf.starts)
  for (let u = 0; u < units.length; u++) starts[cnf.starts.length + u] = cnf.lits.length + u + 1
  return { vars: cnf.vars, lits, starts }
}

describe('tseitin', () => {
  it('is equisatisfiable with the formula under every assignment of its names (brute force)', () => {
    fc.assert(
      fc.property(formulaArb, (json) => {
        const flat = parseFormula(json)
        const { cnf, namedVars } = tseitin(flat)
        const root = flat.kind.length - 1
        let anyTrue = false
        for (let mask = 0; mask < 1 << namedVars; mask++) {
          const values = Int8Array.from({ length: namedVars }, (_, i) => ((mask >> i) & 1 ? 1 : -1))
          const truth = evaluateFormula(flat, values)[root] === 1
          anyTrue ||= truth
          // Plaisted–Greenbaum: the formula holds under σ exactly when σ extends to a model of the CNF.
          expect(solveCnf(withUnits(cnf, values)).status).toBe(truth ? 'SAT' : 'UNSAT')
        }
        const outcome = solveCnf(cnf)
        expect(outcome.status).toBe(anyTrue ? 'SAT' : 'UNSAT')
        if (outcome.model) {
          expect(firstFalsifiedClause(cnf, outcome.model)).toBe(-1)
          const named = Int8Array.from({ length: namedVars }, (_, i) => outcome.model![i + 1]!)
          expect(evaluateFormula(flat, named)[root]).toBe(1)
        }
      }),
      { numRuns: 2000, seed: 20260101 },
    )
  })

  it('encodes cardinality exactly for every k around the bounds', () => {
    for (const op of ['atMost', 'atLeast', 'exactly'] as const) {
      for (let n = 0; n <= 5; n++) {
        for (let k = 0; k <= n + 1; k++) {
          const of = NAMES.slice(0, n).map((name) => ({ var: name }))
          const flat = parseFormula({ and: [{ [op]: { k, of } }, { or: [{ var: 'z' }, { not: { var: 'z' } }] }] })
          const { cnf, namedVars } = tseitin(flat)
          for (let mask = 0; mask < 1 << namedVars; mask++) {
            const values = Int8Array.from({ length: namedVars }, (_, i) => ((mask >> i) & 1 ? 1 : -1))
            let trues = 0
            for (let i = 0; i < n; i++) if (values[i] === 1) trues++
            const expected = op === 'atMost' ? trues <= k : op === 'atLeast' ? trues >= k : trues === k
            expect(solveCnf(withUnits(cnf, values)).status, `${op} k=${k} n=${n} mask=${mask}`).toBe(expected ? 'SAT' : 'UNSAT')
          }
        }
      }
    }
  })

  it('keeps the user variables first and adds no definitions for an asserted conjunction of clauses', () => {
    const flat = parseFormula({ and: [{ or: [{ var: 'p' }, { not: { var: 'q' } }] }, { var: 'q' }] })
    const { cnf, namedVars } = tseitin(flat)
    expect(namedVars).toBe(2)
    expect(cnf.vars).toBe(2)
    expect(Array.from(cnf.lits)).toEqual([1, -2, 2])
  })

  it('handles constants and empty operators', () => {
    const cases: Array<[unknown, 'SAT' | 'UNSAT']> = [
      [true, 'SAT'],
      [false, 'UNSAT'],
      [{ and: [] }, 'SAT'],
      [{ or: [] }, 'UNSAT'],
      [{ xor: [] }, 'UNSAT'],
      [{ not: { xor: [] } }, 'SAT'],
      [{ atLeast: { k: 1, of: [] } }, 'UNSAT'],
      [{ atMost: { k: 0, of: [] } }, 'SAT'],
      [{ exactly: { k: 0, of: [] } }, 'SAT'],
      [{ and: [{ var: 'x' }, { not: { var: 'x' } }] }, 'UNSAT'],
    ]
    for (const [json, expected] of cases) expect(solveCnf(tseitin(parseFormula(json)).cnf).status, JSON.stringify(json)).toBe(expected)
  })
})
