// The logic lobe through HTTP: /sat, /jsonsat, /clauses and /quiz, their answers and their refusals (never a 500).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { REPO_ROOT } from '../../src/version.js'
import { analyzeClauses } from '../../src/engines/sat/simplify.js'
import { parseDimacs } from '../../src/engines/sat/dimacs.js'
import { buildTestApp, expectRefusal, json, okData } from '../helper.js'
import { INLINE_MAX_NODES } from '../../src/caller/ops/logic/common.js'

const SAT_DIR = join(REPO_ROOT, '..', 'shared', 'data', 'sat')

let app: FastifyInstance
beforeAll(async () => {
  // These tests are about answers, not admission: a slow start-up on a busy machine must not shed them.
  app = await buildTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: '60000' } })
})
afterAll(async () => app.close())

const post = (path: string, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: `/api/v1${path}`,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  })



/** Pigeon hole in DIMACS: n + 1 pigeons, n holes; far beyond any small time budget for n = 11. */
function pigeonHoleDimacs(holes: number): string {
  const v = (p: number, h: number) => p * holes + h + 1
  const lines: string[] = []
  for (let p = 0; p <= holes; p++) lines.push(`${Array.from({ length: holes }, (_, h) => v(p, h)).join(' ')} 0`)
  for (let h = 0; h < holes; h++) for (let p = 0; p <= holes; p++) for (let q = p + 1; q <= holes; q++) lines.push(`-${v(p, h)} -${v(q, h)} 0`)
  return `p cnf ${(holes + 1) * holes} ${lines.length}\n${lines.join('\n')}\n`
}

describe('POST /sat', () => {
  it('solves and returns a verified model listing every variable', async () => {
    const d = okData(await post('/sat', { dimacs: 'c demo\np cnf 3 3\n1 2 0\n-1 2 0\n1 -2 0\n' }))
    expect(d).toMatchObject({ status: 'SAT', vars: 3, clauses: 3, verified: true, stopped_by: null })
    expect(d.model.slice(0, 2)).toEqual([1, 2])
    expect(d.model.map(Math.abs)).toEqual([1, 2, 3])
    expect(d.warnings).toEqual(['the header declares 3 variables; the largest one used is 2'])
    for (const key of ['decisions', 'conflicts', 'propagations', 'restarts', 'learned', 'time_ms']) expect(typeof d.stats[key]).toBe('number')
  })

  it('proves UNSAT and omits the model when asked', async () => {
    expect(okData(await post('/sat', { dimacs: 'p cnf 1 2\n1 0\n-1 0\n' }))).toMatchObject({ status: 'UNSAT', model: null, verified: false })
    expect(okData(await post('/sat', { dimacs: 'p cnf 1 1\n1 0\n', want_model: false }))).toMatchObject({ status: 'SAT', model: null, verified: true })
  })

  it('answers UNKNOWN, ok, when its time budget runs out', async () => {
    const d = okData(await post('/sat', { dimacs: pigeonHoleDimacs(11), timeout_ms: 50 }))
    expect(d).toMatchObject({ status: 'UNKNOWN', model: null, verified: false, stopped_by: 'deadline' })
  })

  it.skipIf(!existsSync(join(SAT_DIR, 'uf50', 'uf50-01.cnf')))('reads a SATLIB file with its % trailer (needs ../shared/data/sat)', async () => {
    const d = okData(await post('/sat', { dimacs: readFileSync(join(SAT_DIR, 'uf50', 'uf50-01.cnf'), 'utf8') }))
    expect(d).toMatchObject({ status: 'SAT', vars: 50, clauses: 218, verified: true, warnings: [] })
  })

  it('refuses malformed DIMACS with its line and column', async () => {
    const r = expectRefusal(await post('/sat', { dimacs: 'p cnf 3 1\n1 x2 0\n' }), 'invalid_input', 400)
    expect(r.reason).toMatch(/line 2, column 3/)
    expect(r.issues).toEqual([{ path: 'dimacs', message: "line 2, column 3: 'x2' is not an integer literal" }])
    const above = expectRefusal(await post('/sat', { dimacs: 'p cnf 2 1\n1 3 0\n' }), 'invalid_input', 400)
    expect(above.issues[0].message).toBe("line 2, column 3: variable 3 is above the header's 2 variables")
    expectRefusal(await post('/sat', { dimacs: '' }), 'invalid_input', 400)
  })

  it('refuses a header over the declared limits, naming the limit', async () => {
    const r = expectRefusal(await post('/sat', { dimacs: 'p cnf 100001 1\n1 0\n' }), 'over_limit', 422)
    expect(r.reason).toMatch(/100000/)
    expect(r.hints).toEqual({ limit: 'maxVars', value: 100_000 })
  })

  it('refuses bad bodies through its schema', async () => {
    expectRefusal(await post('/sat', {}), 'invalid_input', 400)
    expectRefusal(await post('/sat', { dimacs: 'p cnf 1 1\n1 0\n', extra: 1 }), 'invalid_input', 400)
    expectRefusal(await post('/sat', { dimacs: 'p cnf 1 1\n1 0\n', timeout_ms: 0 }), 'invalid_input', 400)
    expectRefusal(await post('/sat', { dimacs: 'p cnf 1 1\n1 0\n', timeout_ms: 60_001 }), 'invalid_input', 400)
  })
})

describe('POST /jsonsat', () => {
  it('answers with an assignment of the named variables and the CNF size', async () => {
    const d = okData(await post('/jsonsat', {
      formula: { and: [{ exactly: { k: 1, of: [{ var: 'a' }, { var: 'b' }, { var: 'c' }] } }, { not: { var: 'a' } }, { implies: [{ var: 'b' }, { var: 'c' }] }] },
    }))
    expect(d).toMatchObject({ status: 'SAT', verified: true, vars: 3, assignment: { a: false, b: false, c: true }, model: [-1, -2, 3] })
    expect(d.cnf.vars).toBe(3 + d.cnf.aux_vars)
    expect(d.cnf.clauses).toBe(d.clauses)
  })

  it('keeps variable names that are Object.prototype keys as plain keys of the assignment', async () => {
    const d = okData(await post('/jsonsat', { formula: { and: [{ var: '__proto__' }, { var: 'constructor' }, { not: { var: 'toString' } }] } }))
    expect(d.assignment).toEqual(JSON.parse('{"__proto__": true, "constructor": true, "toString": false}'))
  })

  it('proves UNSAT', async () => {
    const d = okData(await post('/jsonsat', { formula: { atLeast: { k: 2, of: [{ var: 'x' }, { not: { var: 'x' } }] } } }))
    expect(d).toMatchObject({ status: 'UNSAT', assignment: null, model: null })
  })

  it('takes a formula nested up to JSON_MAX_DEPTH and refuses one nested deeper before parsing it', async () => {
    const chain = (n: number) => `{"formula":${'{"not":'.repeat(n)}{"var":"x"}${'}'.repeat(n)}}`
    expect(okData(await post('/jsonsat', chain(9_997)))).toMatchObject({ status: 'SAT', assignment: { x: false } })
    expect(expectRefusal(await post('/jsonsat', chain(9_999)), 'over_limit', 422).reason).toMatch(/JSON_MAX_DEPTH/)
  })

  it('refuses a malformed formula with the path of the problem', async () => {
    const r = expectRefusal(await post('/jsonsat', { formula: { and: [{ var: 'a' }, { or: [{ xor: 7 }] }] } }), 'invalid_input', 400)
    expect(r.issues).toEqual([{ path: 'formula.and[1].or[0].xor', message: "'xor' takes an array of formulas, got number 7" }])
    expectRefusal(await post('/jsonsat', {}), 'invalid_input', 400)
    expectRefusal(await post('/jsonsat', { formula: 'x' }), 'invalid_input', 400)
  })

  it('refuses cardinality constraints over the counter limit, naming it', async () => {
    const of = Array.from({ length: 5000 }, (_, i) => ({ var: `v${i}` }))
    const r = expectRefusal(await post('/jsonsat', { formula: { atMost: { k: 2000, of } } }), 'over_limit', 422)
    expect(r.reason).toMatch(/maxCounterCells = 10000000/)
  })
})

describe('POST /clauses', () => {
  it('analyses JSON clauses', async () => {
    const d = okData(await post('/clauses', { clauses: [[1, 2], [-1, 2], [2, 3, -3], [1, 2]], vars: 4 }))
    expect(d).toMatchObject({ vars: 4, clauses: 4, variables_used: 3, status: 'SAT' })
    expect(d.removed).toMatchObject({ tautologies: 1, duplicate_clauses: 1 })
    expect(d.variables_unused).toEqual({ count: 1, items: [4] })
  })

  it('analyses DIMACS and returns the simplified CNF as DIMACS', async () => {
    const d = okData(await post('/clauses', { dimacs: 'p cnf 3 4\n1 2 0\n-1 -2 0\n1 2 3 0\n-1 -3 0\n' }))
    expect(d.status).toBe('UNDECIDED')
    expect(parseDimacs(d.simplified.dimacs).cnf.starts.length - 1).toBe(d.simplified.clauses)
  })

  it('gives the same analysis when a large input goes through the mill', async () => {
    const lines = ['p cnf 60000 90000']
    let seed = 3
    for (let c = 0; c < 90_000; c++) {
      const lits: number[] = []
      for (let k = 0; k < 3; k++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
        lits.push((1 + (seed % 60_000)) * (seed & 256 ? 1 : -1))
      }
      lines.push(`${lits.join(' ')} 0`)
    }
    const dimacs = `${lines.join('\n')}\n`
    expect(dimacs.length).toBeGreaterThan(1 << 20)
    const d = okData(await post('/clauses', { dimacs, max_listed: 5 }))
    const direct = analyzeClauses(parseDimacs(dimacs).cnf, { listLimit: 5, subsumptionBudget: 50_000_000 })
    expect(d).toEqual({ ...direct, warnings: [] })
  })

  it('answers a tiny text that declares 100k variables in the mill: a model of every variable, the same as direct', async () => {
    const dimacs = 'p cnf 100000 1\n1 0\n'
    const res = await post('/clauses', { dimacs })
    const d = okData(res)
    expect(d.model).toHaveLength(100_000)
    const { cnf, warnings } = parseDimacs(dimacs)
    expect(warnings).toEqual(['the header declares 100000 variables; the largest one used is 1'])
    expect(d).toEqual({ ...analyzeClauses(cnf, { listLimit: 100, subsumptionBudget: 50_000_000 }), warnings })
    expect(res.body.length).toBeGreaterThan(600_000)
  })

  it('refuses both or neither source, and zero literals, with paths', async () => {
    expect(expectRefusal(await post('/clauses', {}), 'invalid_input', 400).issues[0].message).toMatch(/give one of dimacs, clauses/)
    expectRefusal(await post('/clauses', { dimacs: 'p cnf 1 1\n1 0\n', clauses: [[1]] }), 'invalid_input', 400)
    const r = expectRefusal(await post('/clauses', { clauses: [[1, 2], [3, 0]] }), 'invalid_input', 400)
    expect(r.issues).toEqual([{ path: 'clauses[1][1]', message: 'literals are non-zero (a JSON clause needs no closing 0)' }])
    expect(expectRefusal(await post('/clauses', { clauses: [[5]], vars: 2 }), 'invalid_input', 400).issues[0].path).toBe('clauses[0][0]')
    expectRefusal(await post('/clauses', { clauses: [[1.5]] }), 'invalid_input', 400)
  })
})

describe('POST /quiz', () => {
  it('checks an assignment against clauses', async () => {
    const d = okData(await post('/quiz', { clauses: [[1, 2], [-1, 3], [-2, -3]], assignment: { 1: true, 3: false } }))
    expect(d).toMatchObject({ satisfied: false, value: false, checked: 'cnf', falsified_count: 1, undetermined_count: 0 })
    expect(d.falsified).toEqual([{ index: 1, clause: [-1, 3], path: null }])
    expect(d.unassigned).toEqual({ count: 1, items: [2] })
  })

  it('checks an assignment against DIMACS', async () => {
    const d = okData(await post('/quiz', { dimacs: 'p cnf 2 2\n1 2 0\n-1 0\n', assignment: [-1, 2] }))
    expect(d).toMatchObject({ satisfied: true, value: true })
  })

  it('checks an assignment against a JSON formula', async () => {
    const d = okData(await post('/quiz', { formula: { and: [{ var: 'x' }, { not: { var: 'y' } }] }, assignment: { x: true, y: true } }))
    expect(d).toMatchObject({ satisfied: false, checked: 'formula', falsified: [{ index: 1, clause: null, path: 'formula.and[1]' }] })
  })

  it('refuses assignments that do not fit the input', async () => {
    expect(expectRefusal(await post('/quiz', { clauses: [[1, 2]], assignment: [3] }), 'invalid_input', 400).issues[0].path).toBe('assignment[0]')
    expectRefusal(await post('/quiz', { clauses: [[1, 2]], assignment: [1, -1] }), 'invalid_input', 400)
    expectRefusal(await post('/quiz', { formula: { var: 'x' }, assignment: [1] }), 'invalid_input', 400)
    expectRefusal(await post('/quiz', { clauses: [[1]], assignment: 'yes' }), 'invalid_input', 400)
    expectRefusal(await post('/quiz', { dimacs: 'p cnf 1 1\n1 q 0\n', assignment: [] }), 'invalid_input', 400)
  })

  it('writes a large CNF\'s long answer in the mill (the loop tripwire would fail it written on the loop)', async () => {
    // A small body (under 64 KiB) whose header declares more variables than the loop works on: the quiz runs in the
    // mill, and its answer (3,000 falsified clauses listed: ~105 KB) is written there.
    const units = Array.from({ length: 3_000 }, (_, i) => i + 1)
    const dimacs = `p cnf 20000 3000\n${units.map((v) => `${v} 0`).join('\n')}\n`
    const res = await post('/quiz', { dimacs, assignment: units.map((v) => -v), max_listed: 10_000 })
    expect(res.body.length).toBeGreaterThan(64 * 1024)
    const d = okData(res)
    expect(d).toMatchObject({ satisfied: false, checked: 'cnf', falsified_count: 3_000 })
    expect(d.falsified).toHaveLength(3_000)
    expect(d.falsified[2_999]).toEqual({ index: 2_999, clause: [3_000], path: null })
  })
})

describe('bad input is refused, never a 500', () => {
  const bodies: Array<[string, unknown]> = [
    ['/sat', { dimacs: 123 }],
    ['/sat', { dimacs: 'p cnf 1 1\n1 0\n', want_model: 'yes' }],
    ['/sat', '{"dimacs": '],
    ['/sat', []],
    ['/jsonsat', { formula: { atMost: { k: 1.5, of: [] } } }],
    ['/jsonsat', { formula: { var: 7 } }],
    ['/jsonsat', { formula: [] }],
    ['/jsonsat', { formula: null }],
    ['/clauses', { clauses: 'x' }],
    ['/clauses', { clauses: [[1]], vars: -1 }],
    ['/clauses', { dimacs: 'p cnf 1 1\n1 0\n', max_listed: 1e9 }],
    ['/quiz', { clauses: [[1]] }],
    ['/quiz', { formula: { nope: [] }, assignment: {} }],
  ]
  it.each(bodies)('%s %j', async (path, body) => {
    const res = await post(path, body)
    expect(res.statusCode).toBeGreaterThanOrEqual(400)
    expect(res.statusCode).toBeLessThan(500)
    expect(json(res).refuse.code).toBe('invalid_input')
  })
})

const bodyFor = (path: string, formula: unknown) => (path === '/quiz' ? { formula, assignment: {} } : { formula })
/** More values than INLINE_MAX_NODES: two per variable. */
const vars = Array.from({ length: INLINE_MAX_NODES }, (_, i) => ({ var: `v${i}` }))

// Formulas too large to parse on the event loop go to the mill as JSON text, and answer and refuse as a small one
// does (for /jsonsat, the refusal of a large one comes from its job's run).
describe('a formula over INLINE_MAX_NODES', () => {
  it('is solved in the mill', async () => {
    const d = okData(await post('/jsonsat', { formula: { and: [...vars, { not: { var: 'v0' } }] }, want_model: false }))
    expect(d).toMatchObject({ status: 'UNSAT', vars: INLINE_MAX_NODES })
    const sat = okData(await post('/jsonsat', { formula: { and: [{ var: 'x' }, { or: vars }] } }))
    expect(sat).toMatchObject({ status: 'SAT', verified: true, assignment: { x: true } })
  })

  it('is refused with the path of the problem, as a small one is', async () => {
    const formula = { and: [...vars, { or: [{ var: 'a' }, { xor: 7 }] }] }
    for (const path of ['/jsonsat', '/quiz']) {
      const r = expectRefusal(await post(path, bodyFor(path, formula)), 'invalid_input', 400)
      expect(r.reason).toBe(`the formula is malformed (formula.and[${INLINE_MAX_NODES}].or[1].xor: 'xor' takes an array of formulas, got number 7)`)
      expect(r.issues).toEqual([{ path: `formula.and[${INLINE_MAX_NODES}].or[1].xor`, message: "'xor' takes an array of formulas, got number 7" }])
    }
  })

  it('is refused over a limit, naming it', async () => {
    const formula = { atMost: { k: 4_000, of: vars } }
    for (const path of ['/jsonsat', '/quiz']) {
      const r = expectRefusal(await post(path, bodyFor(path, formula)), 'over_limit', 422)
      expect(r.reason).toMatch(/maxCounterCells = 10000000/)
      expect(r.hints).toEqual({ limit: 'maxCounterCells', value: 10_000_000 })
    }
  })

  it('is checked against an assignment in the mill', async () => {
    const d = okData(await post('/quiz', { formula: { and: vars }, assignment: { v0: true, v1: false, stray: true }, max_listed: 2 }))
    expect(d).toMatchObject({
      satisfied: false, checked: 'formula', parts: INLINE_MAX_NODES, falsified_count: 1, falsified: [{ index: 1, path: 'formula.and[1]' }],
      undetermined_count: INLINE_MAX_NODES - 2,
    })
    expect(d.warnings[0]).toMatch(/1 variable\(s\) the formula does not use: "stray"/)
  })
})
