import { describe, expect, it } from 'vitest'
import { evaluateFormula, FormulaLimitError, FormulaSyntaxError, Kind, parseFormula, DEFAULT_FORMULA_LIMITS } from './formula.js'
import { tseitin } from './tseitin.js'
import { solveCnf } from './cdcl.js'

function issuesOf(value: unknown): Array<{ path: string; message: string }> {
  try {
    parseFormula(value)
  } catch (err) {
    if (err instanceof FormulaSyntaxError) return err.issues
    throw err
  }
  throw new Error('expected a FormulaSyntaxError')
}

const rootValue = (value: unknown, assignment: Record<string, boolean | undefined>) => {
  const f = parseFormula(value)
  const values = Int8Array.from(f.names, (name) => (assignment[name] === undefined ? 0 : assignment[name] ? 1 : -1))
  return evaluateFormula(f, values)[f.kind.length - 1]
}

describe('parseFormula', () => {
  it('flattens to post-order with names in order of first appearance', () => {
    const f = parseFormula({ and: [{ var: 'b' }, { not: { var: 'a' } }, { var: 'b' }] })
    expect(f.names).toEqual(['b', 'a'])
    expect(Array.from(f.kind)).toEqual([Kind.Var, Kind.Var, Kind.Not, Kind.Var, Kind.And])
    expect(Array.from(f.children.subarray(f.childStart[4], f.childStart[5]))).toEqual([0, 2, 3])
  })

  it('parses 100 000 nested nots without recursion, and the encoding and solver cope', () => {
    let deep: unknown = { var: 'x' }
    for (let i = 0; i < 100_000; i++) deep = { not: deep }
    const f = parseFormula(deep)
    expect(f.kind.length).toBe(100_001)
    expect(rootValue(deep, { x: true })).toBe(1) // an even number of negations
    const { cnf } = tseitin(f)
    expect(cnf.vars).toBe(1)
    expect(solveCnf(cnf).status).toBe('SAT')
  })

  it('parses a 100 000-deep chain of ands and ors', () => {
    let deep: unknown = { var: 'x0' }
    for (let i = 1; i <= 100_000; i++) deep = i % 2 ? { and: [deep, { var: `x${i}` }] } : { or: [{ var: `x${i}` }, deep] }
    const f = parseFormula(deep)
    expect(f.names).toHaveLength(100_001)
    expect(solveCnf(tseitin(f).cnf).status).toBe('SAT')
  })

  it('names the path of every problem', () => {
    expect(issuesOf({ and: [{ var: 'a' }, { nope: 1 }] })).toEqual([
      { path: 'formula.and[1].nope', message: "unknown operator 'nope'; expected one of var, not, and, or, implies, iff, xor, atMost, atLeast, exactly" },
    ])
    expect(issuesOf({ or: [{ not: { var: '' } }] })[0]!.path).toBe('formula.or[0].not.var')
    expect(issuesOf({ and: [true, { or: [{ xor: [{ atMost: { k: 1, of: [{ iff: [true, 5] }] } }] }] }] })[0]!.path).toBe(
      'formula.and[1].or[0].xor[0].atMost.of[0].iff[1]',
    )
    expect(issuesOf({ implies: [{ var: 'a' }] })[0]).toMatchObject({ path: 'formula.implies', message: expect.stringMatching(/exactly two/) })
    expect(issuesOf({ atMost: { k: -1, of: [] } })[0]!.path).toBe('formula.atMost.k')
    expect(issuesOf({ atLeast: { k: 1, of: [{ var: 'a' }, 3] } })[0]).toMatchObject({ path: 'formula.atLeast.of[1]', message: expect.stringMatching(/got number 3/) })
    expect(issuesOf({ exactly: { k: 1, of: [], extra: true } })[0]!.path).toBe('formula.exactly.extra')
    expect(issuesOf({ and: [], or: [] })[0]!.message).toMatch(/exactly one operator key/)
    expect(issuesOf({})[0]!.message).toMatch(/empty object/)
    expect(issuesOf(null)[0]).toEqual({ path: 'formula', message: 'expected a formula (an object such as {"var": "x"}, or true/false), got null' })
    expect(issuesOf({ and: {} })[0]!.message).toMatch(/takes an array/)
    expect(issuesOf({ var: 'x'.repeat(300) })[0]!.message).toMatch(/at most 256/)
  })

  it('lists several problems at once, up to a bound', () => {
    expect(issuesOf({ and: [1, 2, 3] }).map((i) => i.path)).toEqual(['formula.and[0]', 'formula.and[1]', 'formula.and[2]'])
    expect(issuesOf({ and: Array.from({ length: 100 }, () => 0) })).toHaveLength(20)
  })

  it('refuses formulas over its limits, naming the limit', () => {
    const limits = { ...DEFAULT_FORMULA_LIMITS, maxNodes: 10, maxVars: 3, maxCounterCells: 20 }
    expect(() => parseFormula({ and: Array.from({ length: 12 }, () => true) }, limits)).toThrow(/maxNodes = 10/)
    expect(() => parseFormula({ and: ['a', 'b', 'c', 'd'].map((v) => ({ var: v })) }, limits)).toThrow(/maxVars = 3/)
    const wide = { atMost: { k: 2, of: Array.from({ length: 8 }, () => true) } }
    expect(() => parseFormula(wide, limits)).toThrow(FormulaLimitError)
  })
})

describe('evaluateFormula (three-valued)', () => {
  it('evaluates every operator', () => {
    expect(rootValue({ and: [{ var: 'a' }, { var: 'b' }] }, { a: true, b: true })).toBe(1)
    expect(rootValue({ and: [{ var: 'a' }, { var: 'b' }] }, { a: false })).toBe(-1)
    expect(rootValue({ and: [{ var: 'a' }, { var: 'b' }] }, { a: true })).toBe(0)
    expect(rootValue({ or: [{ var: 'a' }, { var: 'b' }] }, { b: true })).toBe(1)
    expect(rootValue({ implies: [{ var: 'a' }, { var: 'b' }] }, { a: false })).toBe(1)
    expect(rootValue({ implies: [{ var: 'a' }, { var: 'b' }] }, { a: true, b: false })).toBe(-1)
    expect(rootValue({ iff: [{ var: 'a' }, { var: 'b' }] }, { a: false, b: false })).toBe(1)
    expect(rootValue({ xor: [{ var: 'a' }, { var: 'b' }, { var: 'c' }] }, { a: true, b: true, c: true })).toBe(1)
    expect(rootValue({ xor: [{ var: 'a' }, { var: 'b' }] }, { a: true })).toBe(0)
    const three = [{ var: 'a' }, { var: 'b' }, { var: 'c' }]
    expect(rootValue({ atMost: { k: 1, of: three } }, { a: true, b: true })).toBe(-1)
    expect(rootValue({ atMost: { k: 1, of: three } }, { a: false, b: false })).toBe(1)
    expect(rootValue({ atMost: { k: 1, of: three } }, { a: true })).toBe(0)
    expect(rootValue({ atLeast: { k: 2, of: three } }, { a: true, b: true })).toBe(1)
    expect(rootValue({ atLeast: { k: 2, of: three } }, { a: false, b: false })).toBe(-1)
    expect(rootValue({ exactly: { k: 2, of: three } }, { a: true, b: true, c: true })).toBe(-1)
    expect(rootValue({ exactly: { k: 2, of: three } }, { a: true, b: true, c: false })).toBe(1)
    expect(rootValue(true, {})).toBe(1)
    expect(rootValue({ not: false }, {})).toBe(1)
  })
})
