// Light work whose answer may pass what a request writes on the loop (issue #30 item 2): a small CNF, formula or diff
// that /clauses, /quiz or /diff would work on the loop, but whose answer's bound (src/inputs/clauses.ts, quiz.ts,
// diff.ts) is over
// LOOP_VALUE_MAX_BYTES, is worked and written in the mill as short work: no run:heavy, the same answer. Under the
// tripwire (every test host) an answer over 64 KiB written on the loop would be a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { LOOP_VALUE_MAX_BYTES } from '../../src/json/loop-rule.js'
import { clausesAnswerBytes } from '../../src/inputs/clauses.js'
import { quizAnswerBytes, quizFormulaAnswerBytes } from '../../src/inputs/quiz.js'
import { cnfSizeOf } from '../../src/inputs/cnf.js'
import { cnfFromClauses } from '../../src/engines/sat/cnf.js'
import { jsonWeight } from '../../src/engines/diff/json-patch.js'
import { diffAnswerBytes, diffInput, diffRequest } from '../../src/inputs/diff.js'

const ADMIN_TOKEN = 'light-in-mill-admin-token-0123456789'
let open: FastifyInstance
let guarded: FastifyInstance
beforeAll(async () => {
  open = await buildTestApp({ env: { LOOP_TRIPWIRE: 'throw' } })
  guarded = await buildTestApp({ env: { ADMIN_TOKEN, LOOP_TRIPWIRE: 'throw' } })
})
afterAll(async () => Promise.all([open.close(), guarded.close()]))

const post = (host: FastifyInstance, path: string, body: unknown) =>
  host.inject({ method: 'POST', url: `/api/v1${path}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })

const header = { dimacs: 'p cnf 16384 1\n1 0\n', max_listed: 10_000 }
const units = (n: number) => ({
  dimacs: `p cnf ${n} ${n}\n${Array.from({ length: n }, (_, i) => `${i + 1} 0`).join('\n')}\n`,
  assignment: Array.from({ length: n }, (_, i) => -(i + 1)),
  max_listed: 10_000,
})
const names = (n: number) => ({ formula: { or: Array.from({ length: n }, (_, i) => ({ var: `name-${i}` })) }, assignment: {}, max_listed: 10_000 })

describe('a small input whose answer may pass 64 KiB is answered from the mill, as light work', () => {
  const cases: Array<[string, string, unknown]> = [
    ['/clauses, a 30-byte header declaring 16,384 variables', '/clauses', header],
    ['/quiz, 4,500 falsified units', '/quiz', units(4_500)],
    ['/quiz, a formula of 6,000 unassigned names', '/quiz', names(6_000)],
    ['/diff, 10,000 lines each changed', '/diff', { a: 'x\n'.repeat(10_000), b: 'y\n'.repeat(10_000) }],
    ['/diff, a patch that copies its document', '/diff', { a: { s: 'z'.repeat(20_000) }, patch: [{ op: 'copy', from: '/s', path: '/t' }, { op: 'copy', from: '/s', path: '/u' }], mode: 'json' }],
  ]
  for (const [name, path, body] of cases) {
    it(`${name}: answered whole, without run:heavy, by anyone`, async () => {
      for (const host of [open, guarded]) {
        const res = await post(host, path, body)
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
        expect(res.body.length).toBeGreaterThan(LOOP_VALUE_MAX_BYTES)
      }
    })
  }

  it('the answers are the ones worked on the loop would be: the model, the lists, the falsified clauses', async () => {
    const clauses = json(await post(open, '/clauses', header)).data
    expect(clauses).toMatchObject({ vars: 16_384, status: 'SAT', variables_unused: { count: 16_383 } })
    expect(clauses.model).toHaveLength(16_384)
    expect(clauses.variables_unused.items).toHaveLength(10_000)
    const quiz = json(await post(open, '/quiz', units(4_500))).data
    expect(quiz).toMatchObject({ satisfied: false, falsified_count: 4_500, checked: 'cnf' })
    expect(quiz.falsified.slice(0, 2)).toEqual([{ index: 0, clause: [1], path: null }, { index: 1, clause: [2], path: null }])
    const formula = json(await post(open, '/quiz', names(6_000))).data
    expect(formula).toMatchObject({ checked: 'formula', value: null, unassigned: { count: 6_000 } })
  })

  it('in a /run batch, light mill work needs no run:heavy and leaves the batch\'s mill count alone', async () => {
    const batch = Array.from({ length: 10 }, () => ({ op: 'clauses', input: header }))
    const { results } = json(await post(guarded, '/run', { batch, stop_on_refusal: true })).data
    expect(results.map((r: { ok: boolean; refuse: unknown }) => r.refuse)).toEqual(batch.map(() => null))
  })
})

describe('the bounds the loop decides by', () => {
  it('hold for what the loop answers: a CNF just inside them answers no more than its bound', async () => {
    const cnf = { clauses: Array.from({ length: 400 }, (_, i) => [i + 1, -(i + 2), i + 3]), max_listed: 100 }
    const size = cnfSizeOf({ cnf: cnfFromClauses(cnf.clauses, 402) })
    expect(clausesAnswerBytes(size, 100)).toBeLessThanOrEqual(LOOP_VALUE_MAX_BYTES)
    const answered = JSON.stringify(json(await post(open, '/clauses', cnf)).data)
    expect(answered.length).toBeLessThanOrEqual(clausesAnswerBytes(size, 100))
    const quizBody = { clauses: cnf.clauses, assignment: Array.from({ length: 402 }, (_, i) => -(i + 1)), max_listed: 100 }
    expect(quizAnswerBytes(size, 100)).toBeLessThanOrEqual(LOOP_VALUE_MAX_BYTES)
    expect(JSON.stringify(json(await post(open, '/quiz', quizBody)).data).length).toBeLessThanOrEqual(quizAnswerBytes(size, 100))
    const diffBody = { a: 'x\ny\n'.repeat(100), b: 'y\nx\n'.repeat(100), mode: 'chars' as const }
    const diffBound = diffAnswerBytes(diffRequest(diffInput.parse(diffBody), 2 ** 21))
    expect(diffBound).toBeLessThanOrEqual(LOOP_VALUE_MAX_BYTES)
    expect(JSON.stringify(json(await post(open, '/diff', diffBody)).data).length).toBeLessThanOrEqual(diffBound)
    const formula = names(200)
    const bound = quizFormulaAnswerBytes(jsonWeight(formula.formula), 100)
    expect(bound).toBeLessThanOrEqual(LOOP_VALUE_MAX_BYTES)
    expect(JSON.stringify(json(await post(open, '/quiz', { ...formula, max_listed: 100 })).data).length).toBeLessThanOrEqual(bound)
  })
})
