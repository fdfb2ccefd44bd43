import { describe, expect, it } from 'vitest'
import { clausesWork, logicTasks, quizWork, satWork } from './logic.js'
import { parseFormula } from '../../engines/sat/formula.js'
import { NO_PROGRESS } from '../progress.js'

const limits = { maxVars: 100, maxClauses: 100, maxLiterals: 1000 }
const far = Date.now() + 60_000

describe('logic mill tasks', () => {
  it('solve DIMACS and hand input problems back as plain refusals with line and column', () => {
    expect(satWork({ dimacs: 'p cnf 1 1\n1 0\n', wantModel: true, limits }, far)).toMatchObject({ ok: true, value: { status: 'SAT', model: [1] } })
    const bad = satWork({ dimacs: 'p cnf 2 1\n1 2\n3 0\n', wantModel: true, limits }, far)
    expect(bad).toEqual({
      ok: false,
      refusal: {
        code: 'invalid_input',
        reason: "the DIMACS text is malformed at line 3, column 1: variable 3 is above the header's 2 variables",
        issues: [{ path: 'dimacs', message: "line 3, column 1: variable 3 is above the header's 2 variables" }],
      },
    })
    const big = satWork({ dimacs: 'p cnf 101 1\n1 0\n', wantModel: true, limits }, far)
    expect(big).toMatchObject({ ok: false, refusal: { code: 'over_limit', hints: { limit: 'maxVars', value: 100 } } })
  })

  it('results survive a structured clone (they cross a thread boundary)', () => {
    const payload = { formula: parseFormula({ or: [{ var: 'a' }, { var: 'b' }] }), wantModel: true }
    const result = logicTasks['logic.jsonsat']!(structuredClone(payload), { deadline: far, progress: NO_PROGRESS, cancelled: () => false })
    expect(structuredClone(result)).toMatchObject({ ok: true, value: { status: 'SAT', verified: true } })
  })

  it('analyse clauses and check assignments from DIMACS or flat clauses', () => {
    const analysis = clausesWork({ source: { dimacs: 'p cnf 2 2\n1 0\n-1 2 0\n', limits }, options: { listLimit: 10, subsumptionBudget: 1000 } })
    expect(analysis).toMatchObject({ ok: true, value: { status: 'SAT', model: [1, 2] } })
    const quiz = quizWork({ source: { dimacs: 'p cnf 2 1\n1 2 0\n', limits }, assignment: [3], maxListed: 5 })
    expect(quiz).toMatchObject({ ok: false, refusal: { code: 'invalid_input', issues: [{ path: 'assignment[0]' }] } })
  })
})
