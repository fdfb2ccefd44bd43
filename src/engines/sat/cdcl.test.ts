import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { REPO_ROOT } from '../../version.js'
import { CdclSolver, solveCnf } from './cdcl.js'
import { cnfFromClauses, type Cnf } from './cnf.js'
import { parseDimacs } from './dimacs.js'
import { firstFalsifiedClause } from './verify.js'
import { luby } from './restarts.js'

const SAT_DIR = join(REPO_ROOT, '..', 'shared', 'data', 'sat')

/** Satisfiable by exhaustive search (vars ≤ 12). */
function bruteForce(clauses: number[][], vars: number): boolean {
  for (let mask = 0; mask < 1 << vars; mask++) {
    const ok = clauses.every((clause) => clause.some((lit) => ((mask >> (Math.abs(lit) - 1)) & 1) === (lit > 0 ? 1 : 0)))
    if (ok) return true
  }
  return false
}

const cnfArb = fc.integer({ min: 1, max: 12 }).chain((vars) =>
  fc.record({
    vars: fc.constant(vars),
    clauses: fc.array(
      fc.array(fc.integer({ min: 1, max: vars }).chain((v) => fc.constantFrom(v, -v)), { minLength: 0, maxLength: 5 }),
      { minLength: 0, maxLength: 8 * vars },
    ),
  }),
)

/** Pigeon hole: n + 1 pigeons in n holes, UNSAT and hard for resolution (exponential for CDCL). */
function pigeonHole(holes: number): Cnf {
  const v = (p: number, h: number) => p * holes + h + 1
  const clauses: number[][] = []
  for (let p = 0; p <= holes; p++) clauses.push(Array.from({ length: holes }, (_, h) => v(p, h)))
  for (let h = 0; h < holes; h++) {
    for (let p = 0; p <= holes; p++) for (let q = p + 1; q <= holes; q++) clauses.push([-v(p, h), -v(q, h)])
  }
  return cnfFromClauses(clauses, (holes + 1) * holes)
}

describe('CDCL solver', () => {
  it('agrees with brute force on thousands of random small CNFs, and every model satisfies every clause', () => {
    fc.assert(
      fc.property(cnfArb, ({ vars, clauses }) => {
        const cnf = cnfFromClauses(clauses, vars)
        const outcome = solveCnf(cnf)
        expect(outcome.status).toBe(bruteForce(clauses, vars) ? 'SAT' : 'UNSAT')
        if (outcome.status === 'SAT') {
          expect(outcome.model).not.toBeNull()
          expect(firstFalsifiedClause(cnf, outcome.model!)).toBe(-1)
        } else {
          expect(outcome.model).toBeNull()
        }
      }),
      { numRuns: 3000, seed: 42 },
    )
  })

  it('agrees with brute force on random 3-SAT near the threshold (many conflicts, restarts and reductions)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 8, max: 12 }), fc.integer(), (vars, seed) => {
        let state = seed >>> 0
        const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0)
        const clauses = Array.from({ length: Math.round(vars * 4.3) }, () =>
          Array.from({ length: 3 }, () => (1 + (next() % vars)) * (next() & 1 ? 1 : -1)),
        )
        const outcome = solveCnf(cnfFromClauses(clauses, vars))
        expect(outcome.status).toBe(bruteForce(clauses, vars) ? 'SAT' : 'UNSAT')
      }),
      { numRuns: 300, seed: 7 },
    )
  })

  it('handles the degenerate formulas', () => {
    expect(solveCnf(cnfFromClauses([], 0)).status).toBe('SAT')
    expect(solveCnf(cnfFromClauses([[]], 0)).status).toBe('UNSAT')
    expect(solveCnf(cnfFromClauses([[1], [-1]], 1)).status).toBe('UNSAT')
    expect(solveCnf(cnfFromClauses([[1, -1]], 1)).status).toBe('SAT')
    expect(solveCnf(cnfFromClauses([[1, 1, 1], [-1, -1]], 1)).status).toBe('UNSAT')
    const unused = solveCnf(cnfFromClauses([[2]], 5))
    expect(unused.status).toBe('SAT')
    expect(Array.from(unused.model!.subarray(1))).toHaveLength(5)
  })

  it('proves pigeon-hole 7 UNSAT, learning, restarting and reducing on the way', () => {
    const outcome = solveCnf(pigeonHole(7))
    expect(outcome.status).toBe('UNSAT')
    expect(outcome.stats.conflicts).toBeGreaterThan(1000)
    expect(outcome.stats.learned).toBeGreaterThan(1000)
    expect(outcome.stats.restarts).toBeGreaterThan(0)
    expect(outcome.stats.decisions).toBeGreaterThan(0)
    expect(outcome.stats.propagations).toBeGreaterThan(outcome.stats.conflicts)
  })

  it('stops with UNKNOWN when its deadline has passed (status asserted, not time)', () => {
    let calls = 0
    const clock = () => (calls++ === 0 ? 0 : 1_000_000)
    const outcome = new CdclSolver(pigeonHole(9)).solve({ deadline: 10, now: clock })
    expect(outcome.status).toBe('UNKNOWN')
    expect(outcome.stoppedBy).toBe('deadline')
    expect(outcome.model).toBeNull()
  })

  it('stops with UNKNOWN at a conflict budget, with the statistics so far', () => {
    const outcome = new CdclSolver(pigeonHole(9)).solve({ maxConflicts: 500 })
    expect(outcome).toMatchObject({ status: 'UNKNOWN', stoppedBy: 'conflicts', model: null })
    expect(outcome.stats.conflicts).toBe(500)
  })

  it('stops exactly at each budget, naming it, with the count reached equal to the budget', () => {
    for (const [budget, option] of [['conflicts', 'maxConflicts'], ['decisions', 'maxDecisions'], ['propagations', 'maxPropagations']] as const) {
      for (const limit of [1, 17, 500, 4321]) {
        const outcome = new CdclSolver(pigeonHole(9)).solve({ [option]: limit })
        expect(outcome, `${budget} ${limit}`).toMatchObject({ status: 'UNKNOWN', stoppedBy: budget, model: null, core: null })
        expect(outcome.stats[budget], `${budget} ${limit}`).toBe(limit)
      }
    }
    // The first budget reached wins; the others are not passed.
    const both = new CdclSolver(pigeonHole(9)).solve({ maxConflicts: 200, maxDecisions: 100_000, maxPropagations: 10_000_000 })
    expect(both).toMatchObject({ stoppedBy: 'conflicts', stats: { conflicts: 200 } })
    // A budget the search does not reach changes nothing.
    expect(new CdclSolver(pigeonHole(4)).solve({ maxConflicts: 1_000_000, maxDecisions: 1_000_000, maxPropagations: 100_000_000 }).status).toBe('UNSAT')
  })

  it('solves under assumptions: SAT models satisfy them, UNSAT answers name a core the formula contradicts alone', () => {
    let cores = 0
    fc.assert(
      fc.property(cnfArb, fc.array(fc.integer({ min: -12, max: 12 }), { maxLength: 6 }), ({ vars, clauses }, raw) => {
        const assumptions = raw.filter((lit) => lit !== 0 && Math.abs(lit) <= vars)
        const outcome = new CdclSolver(cnfFromClauses(clauses, vars)).solve({ assumptions })
        const withUnits = (lits: number[]) => [...clauses, ...lits.map((lit) => [lit])]
        expect(outcome.status).toBe(bruteForce(withUnits(assumptions), vars) ? 'SAT' : 'UNSAT')
        if (outcome.status === 'SAT') {
          for (const lit of assumptions) expect(outcome.model![Math.abs(lit)]).toBe(Math.sign(lit))
          expect(outcome.core).toBeNull()
        } else if (assumptions.length > 0) {
          cores++
          for (const lit of outcome.core!) expect(assumptions).toContain(lit)
          expect(bruteForce(withUnits(outcome.core!), vars)).toBe(false)
        }
      }),
      { numRuns: 2000, seed: 5 },
    )
    expect(cores).toBeGreaterThan(200)
  })

  it('gives the empty core when the formula is UNSAT without its assumptions, and keeps the formula between calls', () => {
    const solver = new CdclSolver(cnfFromClauses([[1, 2], [-1, 2], [1, -2], [-1, -2]], 3))
    expect(solver.solve({ assumptions: [3] })).toMatchObject({ status: 'UNSAT', core: [] })
    const sat = new CdclSolver(cnfFromClauses([[1, 2], [-2, 3]], 3))
    expect(sat.solve({ assumptions: [-1, -3] })).toMatchObject({ status: 'UNSAT' })
    expect(sat.solve({ assumptions: [-1] })).toMatchObject({ status: 'SAT', core: null })
    expect(sat.solve()).toMatchObject({ status: 'SAT', core: null })
  })

  it('enumerates distinct models through blocking clauses (of the whole model, or of its decisions) until none is left', () => {
    fc.assert(
      fc.property(cnfArb, ({ vars, clauses }) => {
        const count = Array.from({ length: 1 << vars }, (_, mask) => mask).filter((mask) =>
          clauses.every((clause) => clause.some((lit) => ((mask >> (Math.abs(lit) - 1)) & 1) === (lit > 0 ? 1 : 0)))).length
        for (const byDecisions of [false, true]) {
          const solver = new CdclSolver(cnfFromClauses(clauses, vars))
          const seen = new Set<string>()
          for (let outcome = solver.solve(); outcome.status === 'SAT'; outcome = solver.solve()) {
            expect(firstFalsifiedClause(cnfFromClauses(clauses, vars), outcome.model!)).toBe(-1)
            const model = Array.from(outcome.model!.subarray(1), (value, i) => value * (i + 1))
            seen.add(model.join(' '))
            solver.addClause(byDecisions ? solver.blockingClause() : model.map((lit) => -lit))
          }
          expect(seen.size).toBe(count)
        }
      }),
      { numRuns: 300, seed: 3 },
    )
    // 300 formulas, every model of each enumerated twice and counted by brute force: ~20 s of CPU alone, past the
    // default limit on a machine busy with the rest of the suite.
  }, 180_000)

  it('computes the Luby sequence', () => {
    expect(Array.from({ length: 15 }, (_, i) => luby(i))).toEqual([1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8])
  })
})

describe.skipIf(!existsSync(join(SAT_DIR, 'manifest.tsv')))('CDCL solver on the SATLIB set (needs ../shared/data/sat)', () => {
  const rows = existsSync(join(SAT_DIR, 'manifest.tsv'))
    ? readFileSync(join(SAT_DIR, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1).map((row) => row.split('\t'))
    : []
  it.each(rows)('%s has %s variables, %s clauses and is %s', (file, vars, clauseCount, expected) => {
    const parsed = parseDimacs(readFileSync(join(SAT_DIR, file!), 'utf8'))
    expect(parsed.cnf.vars).toBe(Number(vars))
    expect(parsed.cnf.starts.length - 1).toBe(Number(clauseCount))
    expect(parsed.warnings).toEqual([])
    const outcome = solveCnf(parsed.cnf)
    expect(outcome.status).toBe(expected)
    if (expected === 'SAT') expect(firstFalsifiedClause(parsed.cnf, outcome.model!)).toBe(-1)
  })
})

describe('CDCL solver input guard', () => {
  it('refuses a CNF whose literals lie outside its variable count', () => {
    expect(() => solveCnf({ vars: 2, lits: Int32Array.of(1, 3), starts: Int32Array.of(0, 2) })).toThrow(RangeError)
    expect(() => solveCnf({ vars: 2, lits: Int32Array.of(0), starts: Int32Array.of(0, 1) })).toThrow(/literal 0/)
  })
})
