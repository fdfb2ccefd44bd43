import { describe, expect, it } from 'vitest'
import { solveDimacs, solveFormula } from './answer.js'
import { parseFormula } from './formula.js'

const limits = { maxVars: 1000, maxClauses: 1000, maxLiterals: 10_000 }
const run = { wantModel: true, deadline: Number.POSITIVE_INFINITY, now: () => 0 }

describe('solveDimacs', () => {
  it('lists every variable once as a signed literal, unused ones included, and marks the model verified', () => {
    const a = solveDimacs('p cnf 4 2\n1 -2 0\n2 0\n', limits, run).answer
    expect(a).toMatchObject({ status: 'SAT', vars: 4, clauses: 2, verified: true, stopped_by: null })
    expect(a.model!.map(Math.abs)).toEqual([1, 2, 3, 4])
    expect(a.model!.slice(0, 2)).toEqual([1, 2])
    expect(a.warnings).toEqual(['the header declares 4 variables; the largest one used is 2'])
  })

  it('returns no model when none is wanted, but still checks it', () => {
    const a = solveDimacs('p cnf 1 1\n1 0\n', limits, { ...run, wantModel: false }).answer
    expect(a).toMatchObject({ status: 'SAT', model: null, verified: true })
  })

  it('has nothing to verify for UNSAT', () => {
    expect(solveDimacs('p cnf 1 2\n1 0\n-1 0\n', limits, run).answer).toMatchObject({ status: 'UNSAT', model: null, verified: false })
  })

  it('measures time with the clock it is given', () => {
    let t = 100
    const a = solveDimacs('p cnf 1 1\n1 0\n', limits, { ...run, now: () => (t += 5) }).answer
    expect(a.stats.time_ms).toBeGreaterThan(0)
    expect(Object.keys(a.stats).sort()).toEqual(['conflicts', 'decisions', 'learned', 'propagations', 'restarts', 'time_ms'])
  })

  it('answers UNKNOWN when the deadline has already passed', () => {
    const a = solveDimacs('p cnf 2 2\n1 2 0\n-1 -2 0\n', limits, { ...run, deadline: 0, now: () => 1 }).answer
    expect(a).toMatchObject({ status: 'UNKNOWN', model: null, verified: false, stopped_by: 'deadline' })
  })
})

describe('solveFormula', () => {
  it('names the user variables in the assignment and reports the CNF size', () => {
    const f = parseFormula({ and: [{ var: 'rain' }, { implies: [{ var: 'rain' }, { var: 'wet' }] }, { xor: [{ var: 'wet' }, { var: 'dry' }] }] })
    const a = solveFormula(f, run).answer
    expect(a.status).toBe('SAT')
    expect(a.assignment).toEqual({ rain: true, wet: true, dry: false })
    expect(a.model).toEqual([1, 2, -3])
    expect(a.vars).toBe(3)
    expect(a.cnf.vars).toBe(3 + a.cnf.aux_vars)
    expect(a.cnf.clauses).toBe(a.clauses)
    expect(a.verified).toBe(true)
  })

  it('keeps a variable named __proto__ as a plain key', () => {
    const a = solveFormula(parseFormula({ var: '__proto__' }), run).answer
    expect(Object.keys(a.assignment!)).toEqual(['__proto__'])
    expect(JSON.parse(JSON.stringify(a.assignment))).toEqual(JSON.parse('{"__proto__": true}'))
  })
})

describe('the deadline counts the watch search\'s walk, not only propagations', () => {
  // Enumerating the models of a formula over 20,000 free variables: each model's blocking clause holds every decision,
  // and re-deciding walks it from its start at each decision (quadratic), with one propagation a decision. Read per
  // propagation the clock was looked at a few times per model, so over a socket a 3 s budget answered after 3.9 s and a
  // 60 s one was stopped by the mill's hard stop, its models lost. The clock here is a counter: its deadline is a number of
  // readings, so the test asserts that the walk makes the solver look, whatever the machine's speed.
  it('stops an enumeration whose blocking clauses grow long at its deadline, with the models found so far', () => {
    let readings = 0
    const a = solveDimacs('p cnf 20000 1\n1 0\n', { maxVars: 20_000, maxClauses: 10, maxLiterals: 10 }, {
      wantModel: false, models: 3, deadline: 200, now: () => readings++,
    }).answer
    expect(a).toMatchObject({ status: 'SAT', stopped_by: 'deadline', verified: true })
    expect(a.enumeration).toMatchObject({ requested: 3, exhausted: false })
    expect(a.enumeration!.found).toBeLessThan(3)
  })
})
