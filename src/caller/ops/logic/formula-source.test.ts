import { describe, expect, it } from 'vitest'
import { Refusal, type RefusalBody } from '../../../http/refusal.js'
import { logicTasks, quizFormulaWork, type FormulaSource } from '../../../mill/tasks/logic.js'
import { NO_PROGRESS } from '../../../mill/progress.js'
import { turnsDuring } from '../../../store/test-turns.js'
import { flatFormula, FORMULA_LIMITS, INLINE_MAX_NODES, valueOf } from './common.js'
import { TURN_TEXT_CHARS } from '../../../json/json-writer.js'
import { formulaSource, formulaText } from './formula-source.js'
import { hasAtMostValues } from '../../../json/loop-rule.js'
import { answerSchema } from '../../../json/serializer.js'
import { jsonsat } from './jsonsat.js'

const context = { deadline: Date.now() + 60_000, progress: NO_PROGRESS, cancelled: () => false }
const wide = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ var: `v${from + i}` }))
const chain = (depth: number): unknown => {
  let f: unknown = { var: 'x' }
  for (let i = 0; i < depth; i++) f = { not: f }
  return f
}
const refusalOf = (fn: () => unknown): RefusalBody => {
  try {
    fn()
  } catch (err) {
    if (err instanceof Refusal) return err.toBody()
    throw err
  }
  throw new Error('not refused')
}
/** Both mill tasks that take a formula, given it as it crosses to a worker (a structured clone of the payload). */
const members = { model: answerSchema(jsonsat.output.shape.model), assignment: answerSchema(jsonsat.output.shape.assignment) }
const jsonSatInMill = (formula: FormulaSource) => logicTasks['logic.jsonsat'](structuredClone({ formula, wantModel: true, members }), context)
const quizInMill = (formula: FormulaSource) => quizFormulaWork(structuredClone({ formula, assignment: { x: true, v1: false }, maxListed: 5 }))

describe('hasAtMostValues', () => {
  it('counts objects, arrays and leaves exactly, at any depth', () => {
    const f = { and: [{ var: 'a' }, true] } // object, array, object, 'a', true
    expect(hasAtMostValues(f, 5)).toBe(true)
    expect(hasAtMostValues(f, 4)).toBe(false)
    expect(hasAtMostValues(false, 1)).toBe(true)
    const deep = chain(1_000_000) // a million and one objects and the name: no recursion, no stack to overflow
    expect(hasAtMostValues(deep, 1_000_002)).toBe(true)
    expect(hasAtMostValues(deep, 1_000_001)).toBe(false)
  })

  it('stops at the bound: values past it are never read', () => {
    const wideObject: Record<string, unknown> = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]))
    Object.defineProperty(wideObject, 'late', { enumerable: true, get: () => { throw new Error('read past the bound') } })
    expect(hasAtMostValues({ and: [wideObject] }, 8)).toBe(false)
    expect(() => hasAtMostValues({ and: [wideObject] }, 100)).toThrow(/past the bound/)
  })
})

describe('a formula too large for the event loop is parsed in the mill from its text', () => {
  const refused: Array<[string, unknown]> = [
    ['a malformed item deep inside', { and: [...wide(INLINE_MAX_NODES), { or: [{ var: 'a' }, { xor: 7 }] }] }],
    ['twenty and more problems', { and: Array.from({ length: INLINE_MAX_NODES }, (_, i) => (i % 500 === 0 ? { nope: i } : { var: `v${i}` })) }],
    ['a nested chain with a bad leaf', { and: [chain(9_000), { var: '' }, ...wide(INLINE_MAX_NODES)] }],
    ['cardinality over maxCounterCells', { atMost: { k: 4_000, of: wide(INLINE_MAX_NODES) } }],
    ['more names than maxVars', { and: wide(FORMULA_LIMITS.maxVars + 1) }],
  ]
  it.each(refused)('%s: the same refusal as the inline parse', async (_, formula) => {
    expect(hasAtMostValues(formula, INLINE_MAX_NODES)).toBe(false)
    const inline = refusalOf(() => flatFormula(formula))
    const source = await formulaSource(formula) // resolves: the loop does not parse it, so cannot refuse it
    expect('json' in source).toBe(true)
    expect(refusalOf(() => valueOf(jsonSatInMill(source)))).toEqual(inline)
    expect(refusalOf(() => valueOf(quizInMill(source)))).toEqual(inline)
  })

  it('names the limit as the inline refusal does', async () => {
    const source = await formulaText({ and: wide(FORMULA_LIMITS.maxVars + 1) })
    expect(refusalOf(() => valueOf(jsonSatInMill(source)))).toMatchObject({
      code: 'over_limit',
      reason: `the formula names more than ${FORMULA_LIMITS.maxVars} variables (limit maxVars = ${FORMULA_LIMITS.maxVars})`,
      hints: { limit: 'maxVars', value: FORMULA_LIMITS.maxVars },
    })
  })

  it('answers as the flat formula does, at any depth (text crosses threads where a deep value cannot)', async () => {
    const formula = { and: [chain(9_999), { or: wide(INLINE_MAX_NODES) }, { atMost: { k: 1, of: wide(3) } }] }
    const text = await formulaText(formula)
    const flat = flatFormula(formula)
    const pick = ({ status, model, assignment, vars, clauses, verified }: Record<string, unknown>) => ({ status, model, assignment, vars, clauses, verified })
    expect(pick(valueOf(jsonSatInMill(text)).value as never)).toEqual(pick(valueOf(jsonSatInMill(flat)).value as never))
    expect(valueOf(jsonSatInMill(text)).value.status).toBe('SAT')
    expect(quizInMill(text)).toEqual(quizInMill(flat))
  })

  it('writes the text a part per loop turn', async () => {
    const formula = { and: wide(50_000) }
    const { value, turns } = await turnsDuring(() => formulaSource(formula))
    if (!('json' in value)) throw new Error('expected text')
    expect(value.json).toBe(JSON.stringify(formula))
    expect(turns).toBeGreaterThanOrEqual(Math.floor(value.json.length / TURN_TEXT_CHARS))
  })

  it('parses a formula within INLINE_MAX_NODES at once, refusing it there', async () => {
    const formula = { and: wide(INLINE_MAX_NODES / 2 - 1) } // an object, an array and two values a var
    expect(hasAtMostValues(formula, INLINE_MAX_NODES)).toBe(true)
    expect('kind' in (await formulaSource(formula))).toBe(true)
    const refused = await formulaSource({ and: [{ xor: 7 }] }).then(() => null, (err: Refusal) => err.toBody())
    expect(refused).toMatchObject({ code: 'invalid_input', issues: [{ path: 'formula.and[0].xor' }] })
  })
})
