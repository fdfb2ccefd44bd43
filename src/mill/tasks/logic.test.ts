import { describe, expect, it } from 'vitest'
import { clausesWork, jsonSatWork, logicTasks, quizWork, satWork } from './logic.js'
import { parseFormula } from '../../engines/sat/formula.js'
import { NO_PROGRESS } from '../progress.js'
import { solveDimacs } from '../../engines/sat/answer.js'
import { pigeonholeDimacs } from '../../engines/sat/pigeonhole.js'
import { checkedAnswer } from './sat-check.js'
import { z } from 'zod'
import { answerSchema } from '../../json/serializer.js'

const limits = { maxVars: 100, maxClauses: 100, maxLiterals: 1000 }
const far = Date.now() + 60_000
const model = answerSchema(z.array(z.number().int()).nullable())
const members = { model, assignment: answerSchema(z.record(z.string(), z.boolean()).nullable()) }
const satMembers = { model, models: answerSchema(z.array(z.array(z.number().int())).nullable()) }

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
    const payload = { formula: parseFormula({ or: [{ var: 'a' }, { var: 'b' }] }), wantModel: true, members }
    const result = logicTasks['logic.jsonsat']!(structuredClone(payload), { deadline: far, progress: NO_PROGRESS, cancelled: () => false })
    expect(structuredClone(result)).toMatchObject({ ok: true, value: { status: 'SAT', verified: true } })
    // The model and assignment come written, as bytes of their own.
    const value = result.ok ? result.value : null
    expect(JSON.parse(Buffer.from(value!.assignment!).toString())).toEqual(jsonSatWork(payload, far).ok && { a: expect.any(Boolean), b: expect.any(Boolean) })
  })

  it('analyse clauses and check assignments from DIMACS or flat clauses', () => {
    const analysis = clausesWork({ source: { dimacs: 'p cnf 2 2\n1 0\n-1 2 0\n', limits }, options: { listLimit: 10, subsumptionBudget: 1000 } })
    expect(analysis).toMatchObject({ ok: true, value: { status: 'SAT', model: [1, 2] } })
    const quiz = quizWork({ source: { dimacs: 'p cnf 2 1\n1 2 0\n', limits }, assignment: [3], maxListed: 5 })
    expect(quiz).toMatchObject({ ok: false, refusal: { code: 'invalid_input', issues: [{ path: 'assignment[0]' }] } })
  })

  it('check an UNSAT proof under the deadline: verified with its checker named, or unverified saying why', () => {
    const run = { wantModel: false, deadline: far, now: Date.now, proof: { format: 'lrat' as const, maxBytes: 1 << 24 } }
    const solved = solveDimacs(pigeonholeDimacs(4), { maxVars: 100, maxClauses: 1000, maxLiterals: 10_000 }, run)
    const verified = checkedAnswer(solved, far, Date.now)
    expect(verified).toMatchObject({ status: 'UNSAT', verified: true, verification: null, checker: { name: 'ncm-proof-check', format: 'lrat' } })
    expect(verified.proof!.sha256).toMatch(/^[0-9a-f]{64}$/)
    // The deadline passed before the check could run: the answer says so instead of blocking.
    const late = checkedAnswer(solved, 0, () => 1)
    expect(late).toMatchObject({ status: 'UNSAT', verified: false, checker: { steps_checked: 0 } })
    expect(late.verification!.reason).toMatch(/checking stopped at the deadline after 0 of \d+ proof steps/)
    expect(late.proof).not.toBeNull()
    const dropped = solveDimacs(pigeonholeDimacs(4), { maxVars: 100, maxClauses: 1000, maxLiterals: 10_000 }, { ...run, proof: { format: 'drat', maxBytes: 64 } })
    expect(checkedAnswer(dropped, far, Date.now)).toMatchObject({ verified: false, proof: null, verification: { reason: expect.stringMatching(/grew past its limit of 64 bytes/) } })
  })

  it('move the bytes of a proof back with the answer instead of copying them', () => {
    const payload = { dimacs: 'p cnf 1 2\n1 0\n-1 0\n', wantModel: false, limits, search: { proof: { format: 'drat' as const, maxBytes: 1024 } }, members: satMembers }
    const result = logicTasks['logic.sat']!(payload, { deadline: far, progress: NO_PROGRESS, cancelled: () => false })
    expect(result).toMatchObject({ ok: true, value: { verified: true, proof: { format: 'drat', steps: 1 } } })
    expect(Object.getOwnPropertySymbols(result)).toHaveLength(1)
    // A model comes written, in bytes of its own that move too.
    const sat = logicTasks['logic.sat']!({ ...payload, dimacs: 'p cnf 2 1\n1 -2 0\n', wantModel: true, search: {} }, { deadline: far, progress: NO_PROGRESS, cancelled: () => false })
    expect(sat.ok && Buffer.from(sat.value.model!).toString()).toMatch(/^\[-?1,-?2\]$/)
    expect(sat.ok && sat.value.models).toBeNull()
  })

  it('keep the CNF of /jsonsat as DIMACS only up to its byte limit, saying when it is not kept', () => {
    const formula = parseFormula({ and: [{ var: 'a' }, { not: { var: 'a' } }] })
    const kept = jsonSatWork({ formula, wantModel: false, wantCnf: true, maxCnfBytes: 1 << 20 }, far)
    expect(kept).toMatchObject({ ok: true, value: { cnf_dimacs: { bytes: expect.any(Number) }, warnings: [] } })
    const over = jsonSatWork({ formula, wantModel: false, wantCnf: true, maxCnfBytes: 4 }, far)
    expect(over).toMatchObject({ ok: true, value: { cnf_dimacs: null, warnings: [expect.stringMatching(/over the 4 kept: it is not stored/)] } })
  })
})
