import { describe, expect, it } from 'vitest'
import { cnfAssignment, formulaAssignment, QuizInputError, quizCnf, quizFormula } from './quiz.js'
import { cnfFromClauses } from './cnf.js'
import { parseFormula } from './formula.js'

const cnf = cnfFromClauses([[1, 2], [-1, 3], [-2, -3], [4, -4]], 5)

describe('quizCnf', () => {
  it('reports a satisfying assignment as satisfied', () => {
    const r = quizCnf(cnf, cnfAssignment(5, [1, -2, 3, 4]), 10)
    expect(r).toMatchObject({ satisfied: true, value: true, parts: 4, falsified_count: 0, undetermined_count: 0 })
    expect(r.unassigned).toEqual({ count: 0, items: [] })
  })

  it('lists falsified clauses with 0-based indexes, and what is left unassigned', () => {
    const r = quizCnf(cnf, cnfAssignment(5, { 1: true, 3: false }), 10)
    expect(r.satisfied).toBe(false)
    expect(r.value).toBe(false)
    expect(r.falsified).toEqual([{ index: 1, clause: [-1, 3], path: null }])
    expect(r.undetermined_count).toBe(1) // [4, -4] waits on variable 4
    expect(r.unassigned).toEqual({ count: 2, items: [2, 4] }) // 5 occurs in no clause
  })

  it('is undetermined, not satisfied, while a clause waits on an unassigned variable', () => {
    const r = quizCnf(cnf, cnfAssignment(5, [1, -2, 3]), 10)
    expect(r).toMatchObject({ satisfied: false, value: null, falsified_count: 0, undetermined_count: 1 })
  })

  it('caps the lists but counts everything', () => {
    const many = cnfFromClauses(Array.from({ length: 50 }, (_, i) => [i + 1]), 50)
    const r = quizCnf(many, cnfAssignment(50, []), 3)
    expect(r.undetermined_count).toBe(50)
    expect(r.unassigned).toEqual({ count: 50, items: [1, 2, 3] })
  })

  it('refuses variables outside the CNF, zero, contradictions and non-numeric keys', () => {
    const issues = (a: Parameters<typeof cnfAssignment>[1]) => {
      try {
        cnfAssignment(5, a)
      } catch (err) {
        if (err instanceof QuizInputError) return err.issues
      }
      throw new Error('expected a QuizInputError')
    }
    expect(issues([6])).toEqual([{ path: 'assignment[0]', message: "variable 6 is above the formula's 5 variables" }])
    expect(issues([1, 0])[0]!.path).toBe('assignment[1]')
    expect(issues([1, -1])).toEqual([{ path: 'assignment[1]', message: 'variable 1 is given both values' }])
    expect(issues({ x: true })[0]!.message).toMatch(/not a variable number/)
    expect(issues({ '01': true })[0]!.path).toBe('assignment.01')
  })
})

describe('quizFormula', () => {
  const f = parseFormula({ and: [{ var: 'x' }, { or: [{ var: 'y' }, { var: 'z' }] }, { not: { var: 'x' } }] })

  it('lists the falsified top-level conjuncts by path', () => {
    const { values } = formulaAssignment(f, { x: true, y: true, z: false })
    const r = quizFormula(f, values, 10)
    expect(r).toMatchObject({ satisfied: false, value: false, parts: 3, falsified_count: 1 })
    expect(r.falsified).toEqual([{ index: 2, clause: null, path: 'formula.and[2]' }])
  })

  it('uses three-valued logic for partial assignments and warns about stray names', () => {
    const { values, warnings } = formulaAssignment(f, { y: true, w: false })
    const r = quizFormula(f, values, 10)
    expect(r).toMatchObject({ satisfied: false, value: null, falsified_count: 0, undetermined_count: 2 })
    expect(r.unassigned).toEqual({ count: 2, items: ['x', 'z'] })
    expect(warnings[0]).toMatch(/does not use: "w"/)
  })

  it('treats a formula that is not a conjunction as one part', () => {
    const g = parseFormula({ or: [{ var: 'a' }, { var: 'b' }] })
    const r = quizFormula(g, formulaAssignment(g, { a: false, b: false }).values, 10)
    expect(r.falsified).toEqual([{ index: 0, clause: null, path: 'formula' }])
    expect(r.parts).toBe(1)
  })
})
