import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { analyzeClauses, DEFAULT_SIMPLIFY_OPTIONS } from './simplify.js'
import { cnfFromClauses } from './cnf.js'
import { parseDimacs } from './dimacs.js'
import { solveCnf } from './cdcl.js'
import { firstFalsifiedClause } from './verify.js'

const analyze = (clauses: number[][], vars?: number) => analyzeClauses(cnfFromClauses(clauses, vars))

describe('analyzeClauses', () => {
  it('counts what is in the input as given', () => {
    const a = analyze([[1, 2], [-1, 2], [2, 3, -3], [1, 2], [4], [2, 1, 1]], 6)
    expect(a).toMatchObject({ vars: 6, clauses: 6, literals: 13, variables_used: 4 })
    expect(a.variables_unused).toEqual({ count: 2, items: [5, 6] })
    expect(a.clause_lengths).toEqual([{ length: 1, count: 1 }, { length: 2, count: 3 }, { length: 3, count: 2 }])
    expect(a.unit_literals).toEqual({ count: 1, items: [4] })
    expect(a.pure_literals).toEqual({ count: 2, items: [2, 4] })
    expect(a.removed).toMatchObject({ tautologies: 1, duplicate_literals: 1, duplicate_clauses: 2 })
  })

  it('propagates units to a conflict: UNSAT, and the simplified CNF is the empty clause', () => {
    const a = analyze([[1], [-1, 2], [-2, 3], [-3, -1]])
    expect(a.status).toBe('UNSAT')
    expect(a.model).toBeNull()
    expect(a.simplified.clauses).toBe(1)
    expect(parseDimacs(a.simplified.dimacs).cnf.lits.length).toBe(0)
  })

  it('decides SAT by units and pure literals, with a model checked against the input', () => {
    const a = analyze([[1], [-1, 2], [3, 4], [3, -4]])
    expect(a.status).toBe('SAT')
    expect(a.propagation.fixed_by_units).toBe(2)
    expect(a.propagation.fixed_by_purity).toBe(1)
    expect(a.fixed.items).toEqual([1, 2, 3])
    expect(a.model).toEqual([1, 2, 3, -4])
    expect(a.simplified.clauses).toBe(0)
  })

  it('removes subsumed clauses and leaves an undecided core', () => {
    // [1 2 3] goes (subsumed by [1 2]); then 3 occurs only negated, so -3 is fixed as pure.
    const a = analyze([[1, 2], [-1, -2], [1, 2, 3], [-1, -3], [2, -3]])
    expect(a.removed.subsumed).toBe(1)
    expect(a.subsumption_complete).toBe(true)
    expect(a.fixed.items).toEqual([-3])
    expect(a.status).toBe('UNDECIDED')
    expect(a.simplified.dimacs).toBe('c simplified by NCM Hub /clauses: UNDECIDED\np cnf 3 2\n1 2 0\n-1 -2 0\n')
  })

  it('stops subsumption at its budget and says so', () => {
    const base = Array.from({ length: 100 }, (_, i) => [1 + (i % 7), -(8 + (i % 5)), 13 + (i % 3)])
    const mirrored = [...base, ...base.map((c) => c.map((lit) => -lit))]
    const clauses = [...mirrored, ...mirrored.map((c) => [...c, 20]), [-20, 1, 8]]
    const a = analyzeClauses(cnfFromClauses(clauses), { ...DEFAULT_SIMPLIFY_OPTIONS, subsumptionBudget: 10 })
    expect(a.status).toBe('UNDECIDED')
    expect(a.subsumption_complete).toBe(false)
  })

  it('treats an empty input clause as UNSAT and an empty formula as SAT', () => {
    expect(analyze([[1, 2], []]).status).toBe('UNSAT')
    expect(analyze([]).status).toBe('SAT')
  })

  it('caps its lists at the list limit while counting everything', () => {
    const a = analyzeClauses(cnfFromClauses([], 500), { ...DEFAULT_SIMPLIFY_OPTIONS, listLimit: 3 })
    expect(a.variables_unused).toEqual({ count: 500, items: [1, 2, 3] })
  })

  it('is equisatisfiable with its input, and never claims more than the solver finds (property)', () => {
    const arb = fc.integer({ min: 1, max: 10 }).chain((vars) =>
      fc.tuple(
        fc.constant(vars),
        fc.array(fc.array(fc.integer({ min: 1, max: vars }).chain((v) => fc.constantFrom(v, -v)), { maxLength: 4 }), { maxLength: 6 * vars }),
      ),
    )
    fc.assert(
      fc.property(arb, ([vars, clauses]) => {
        const cnf = cnfFromClauses(clauses, vars)
        const a = analyzeClauses(cnf)
        const truth = solveCnf(cnf).status
        if (a.status !== 'UNDECIDED') expect(a.status).toBe(truth)
        if (a.model) expect(firstFalsifiedClause(cnf, Int8Array.from([0, ...a.model.map(Math.sign)]))).toBe(-1)
        const simplified = parseDimacs(a.simplified.dimacs).cnf
        expect(solveCnf(simplified).status).toBe(truth)
        expect(a.simplified.clauses).toBe(simplified.starts.length - 1)
      }),
      { numRuns: 1500, seed: 99 },
    )
  })
})
