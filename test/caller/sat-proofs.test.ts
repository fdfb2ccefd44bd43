// /sat and /jsonsat beyond a bare answer: checked UNSAT proofs stored as pins, budgets, assumptions with cores, model
// enumeration, and the refusals that come before any work — through HTTP, /run and /cli.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, expectRefusal, okData } from '../helper.js'
import { grantRepository } from '../../src/access/grants.js'
import { checkProof } from '../../src/engines/proof-check/index.js'
import { parseDimacs } from '../../src/engines/sat/dimacs.js'
import { cnfFromClauses } from '../../src/engines/sat/cnf.js'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'

const ADMIN = 'proofs-admin-token-0123456789'
let open: FastifyInstance
let secured: FastifyInstance
beforeAll(async () => {
  ;[open, secured] = await Promise.all([
    buildTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: '60000' } }),
    buildTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: '60000', ADMIN_TOKEN: ADMIN } }),
  ])
})
afterAll(async () => Promise.all([open.close(), secured.close()]))

const post = (path: string, payload: unknown, app = open, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/v1${path}`, headers: { accept: 'application/json', 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) })

/** GET of an answer's url as a client would do it (no Accept: the proof's own text). */
async function fetchText(url: string, app = open) {
  const res = await app.inject({ method: 'GET', url })
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200)
  return { type: String(res.headers['content-type']), text: res.body, bytes: res.rawPayload }
}

const XOR_UNSAT = 'p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n'
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('UNSAT answers with proofs', () => {
  it.each(['lrat', 'drat'] as const)('%s: verified by the named checker, stored, and readable as text/plain that checks against the formula', async (format) => {
    const dimacs = pigeonholeDimacs(4)
    const d = okData(await post('/sat', { dimacs, proof: format }))
    expect(d).toMatchObject({ status: 'UNSAT', verified: true, verification: null, model: null, core: null })
    expect(d.checker).toMatchObject({ name: 'ncm-proof-check', format })
    expect(d.checker.steps_checked).toBeGreaterThan(0)
    expect(d.proof).toMatchObject({ format, url: `/api/v1/pin/text?digest=sha256:${d.proof.sha256}` })
    expect(typeof d.stats.check_ms).toBe('number')
    const got = await fetchText(d.proof.url)
    expect(got.type).toMatch(/^text\/plain/)
    expect(got.bytes.byteLength).toBe(d.proof.bytes)
    expect(sha256(got.bytes)).toBe(d.proof.sha256)
    expect(got.text.split('\n').filter(Boolean)).toHaveLength(d.proof.steps)
    expect(checkProof(format, parseDimacs(dimacs).cnf, new Uint8Array(got.bytes))).toMatchObject({ verdict: 'verified' })
  })

  it('says why an UNSAT answer without a proof is unverified, and gives no proof for SAT or UNKNOWN', async () => {
    const bare = okData(await post('/sat', { dimacs: XOR_UNSAT }))
    expect(bare).toMatchObject({ status: 'UNSAT', verified: false, checker: null, proof: null, stats: { check_ms: null } })
    expect(bare.verification.reason).toMatch(/proof "lrat" or "drat"/)
    const sat = okData(await post('/sat', { dimacs: 'p cnf 2 1\n1 2 0\n', proof: 'lrat' }))
    expect(sat).toMatchObject({ status: 'SAT', verified: true, verification: null, checker: null, proof: null })
    const unknown = okData(await post('/sat', { dimacs: pigeonholeDimacs(9), proof: 'drat', max_conflicts: 10 }))
    expect(unknown).toMatchObject({ status: 'UNKNOWN', verified: false, proof: null, stopped_by: 'conflicts' })
    expect(unknown.verification.reason).toMatch(/stopped \(conflicts\)/)
  })

  it('/jsonsat proves UNSAT over the Tseitin CNF it solved, and stores that CNF beside the proof', async () => {
    const formula = { and: [{ xor: [{ var: 'a' }, { var: 'b' }] }, { iff: [{ var: 'a' }, { var: 'b' }] }] }
    const d = okData(await post('/jsonsat', { formula, proof: 'lrat' }))
    expect(d).toMatchObject({ status: 'UNSAT', verified: true, checker: { format: 'lrat' } })
    const cnf = await fetchText(d.cnf.url)
    expect(sha256(cnf.bytes)).toBe(d.cnf.sha256)
    const parsed = parseDimacs(cnf.text).cnf
    expect(parsed.starts.length - 1).toBe(d.cnf.clauses)
    const proof = await fetchText(d.proof.url)
    expect(checkProof('lrat', parsed, new Uint8Array(proof.bytes))).toMatchObject({ verdict: 'verified' })
    const onlyCnf = okData(await post('/jsonsat', { formula: { or: [{ var: 'x' }, { var: 'y' }] }, want_cnf: true }))
    expect(onlyCnf.status).toBe('SAT')
    expect(parseDimacs((await fetchText(onlyCnf.cnf.url)).text).cnf.vars).toBe(onlyCnf.cnf.vars)
    expect(okData(await post('/jsonsat', { formula: { var: 'x' } })).cnf).toMatchObject({ sha256: null, url: null })
  })
})

describe('budgets', () => {
  it.each([['max_conflicts', 'conflicts'], ['max_decisions', 'decisions'], ['max_propagations', 'propagations']] as const)(
    '%s stops the search with UNKNOWN, stopped_by %s, at exactly the count given',
    async (field, counter) => {
      for (const limit of [1, 250]) {
        const d = okData(await post('/sat', { dimacs: pigeonholeDimacs(9), [field]: limit }))
        expect(d).toMatchObject({ status: 'UNKNOWN', stopped_by: counter, model: null, verified: false })
        expect(d.stats[counter]).toBe(limit)
      }
    },
  )
})

describe('assumptions', () => {
  const chain = 'p cnf 4 3\n1 2 0\n-2 3 0\n-3 4 0\n'
  it('answers SAT with a model that satisfies them, leaving the formula unchanged', async () => {
    const d = okData(await post('/sat', { dimacs: chain, assumptions: [-1, -4, 3] }))
    expect(d.status).toBe('UNSAT')
    const sat = okData(await post('/sat', { dimacs: chain, assumptions: [-1, 3] }))
    expect(sat).toMatchObject({ status: 'SAT', verified: true, core: null })
    expect(sat.model).toEqual(expect.arrayContaining([-1, 3]))
    expect(okData(await post('/sat', { dimacs: chain })).status).toBe('SAT')
  })

  it('answers UNSAT with a core of failed assumptions, contradictory with the formula alone, and its checked proof', async () => {
    const assumptions = [3, -1, 2, -4]
    const d = okData(await post('/sat', { dimacs: chain, assumptions, proof: 'lrat' }))
    expect(d).toMatchObject({ status: 'UNSAT', verified: true })
    for (const lit of d.core) expect(assumptions).toContain(lit)
    const base = parseDimacs(chain).cnf
    const clauses = Array.from({ length: base.starts.length - 1 }, (_, c) => Array.from(base.lits.subarray(base.starts[c], base.starts[c + 1])))
    const withCore = cnfFromClauses([...clauses, ...d.core.map((lit: number) => [lit])], 4)
    const core = okData(await post('/sat', { dimacs: `p cnf 4 ${clauses.length + d.core.length}\n${[...clauses, ...d.core.map((l: number) => [l])].map((c) => `${c.join(' ')} 0`).join('\n')}\n` }))
    expect(core.status).toBe('UNSAT')
    const proof = await fetchText(d.proof.url)
    expect(checkProof('lrat', withCore, new Uint8Array(proof.bytes))).toMatchObject({ verdict: 'verified' })
  })
})

describe('model enumeration', () => {
  it('lists distinct models, each satisfying the formula, and says when there are no more', async () => {
    const all = okData(await post('/sat', { dimacs: 'p cnf 3 1\n1 2 3 0\n', models: 10 }))
    expect(all).toMatchObject({ status: 'SAT', verified: true, enumeration: { requested: 10, found: 7, exhausted: true } })
    expect(new Set(all.models.map((m: number[]) => m.join(' '))).size).toBe(7)
    for (const model of all.models) expect(model.some((lit: number) => lit > 0)).toBe(true)
    expect(all.model).toEqual(all.models[0])
    const some = okData(await post('/sat', { dimacs: 'p cnf 3 1\n1 2 3 0\n', models: 3, assumptions: [-1] }))
    expect(some).toMatchObject({ enumeration: { requested: 3, found: 3, exhausted: false } })
    for (const model of some.models) expect(model[0]).toBe(-1)
    expect(okData(await post('/sat', { dimacs: XOR_UNSAT, models: 5 }))).toMatchObject({ status: 'UNSAT', models: [], enumeration: { found: 0, exhausted: true } })
  })
})

describe('refused before any work', () => {
  it('refuses bad assumptions, too many models, and a proof while enumerating', async () => {
    const zero = expectRefusal(await post('/sat', { dimacs: XOR_UNSAT, assumptions: [1, 0] }), 'invalid_input', 400)
    expect(zero.issues[0].path).toBe('assumptions[1]')
    const above = expectRefusal(await post('/sat', { dimacs: XOR_UNSAT, assumptions: [1, -3] }), 'invalid_input', 400)
    expect(above.issues).toEqual([{ path: 'assumptions[1]', message: "literal -3 is outside the header's 2 variables" }])
    expectRefusal(await post('/sat', { dimacs: XOR_UNSAT, models: 1001 }), 'over_limit', 422)
    const wide = expectRefusal(await post('/sat', { dimacs: 'p cnf 5000 1\n1 0\n', models: 500 }), 'over_limit', 422)
    expect(wide.hints).toEqual({ limit: 'maxModelLiterals', value: 1_000_000 })
    expect(okData(await post('/sat', { dimacs: 'p cnf 5000 1\n1 0\n', models: 40, want_model: false, timeout_ms: 60_000 })).enumeration).toEqual({ requested: 40, found: 40, exhausted: false })
    const both = expectRefusal(await post('/sat', { dimacs: XOR_UNSAT, models: 2, proof: 'drat' }), 'invalid_input', 400)
    expect(both.issues[0].path).toBe('proof')
    expectRefusal(await post('/sat', { dimacs: XOR_UNSAT, max_conflicts: 0 }), 'invalid_input', 400)
  })

  it('stores a proof or a CNF only for a credential with pin:write, as every pin', async () => {
    expectRefusal(await post('/sat', { dimacs: XOR_UNSAT, proof: 'lrat' }, secured), 'unauthorized', 401)
    expectRefusal(await post('/jsonsat', { formula: { var: 'x' }, want_cnf: true }, secured), 'unauthorized', 401)
    const d = okData(await post('/sat', { dimacs: XOR_UNSAT, proof: 'lrat' }, secured, { authorization: `Bearer ${ADMIN}` }))
    expect(d.verified).toBe(true)
    expect((await fetchText(d.proof.url, secured)).text).toMatch(/ 0\n$/)
    // Heavy work alone (run:heavy) searches; pinning its proof is a pin write too.
    const heavy = { authorization: `Bearer ${(await grantRepository(secured.store.sql).issue('heavy', ['run:heavy'], 600, Date.now())).token}` }
    expectRefusal(await post('/sat', { dimacs: XOR_UNSAT, proof: 'lrat' }, secured, heavy), 'forbidden', 403)
    expect(okData(await post('/sat', { dimacs: XOR_UNSAT }, secured, heavy)).verified).toBe(false)
  })
})

describe('the same fields through /run and /cli', () => {
  it('/run and /cli take proof, budgets and assumptions from the registry', async () => {
    const run = okData(await post('/run', { op: 'sat', input: { dimacs: XOR_UNSAT, proof: 'lrat', assumptions: [1] } }))
    expect(run.results[0].data).toMatchObject({ status: 'UNSAT', verified: true, core: [] })
    const cli = okData(await post('/cli', { argv: ['sat', '--dimacs', pigeonholeDimacs(8), '--max-decisions', '7', '--assumptions', '[1,-2]'] }))
    expect(cli.results[0].data).toMatchObject({ status: 'UNKNOWN', stopped_by: 'decisions', stats: { decisions: 7 } })
  })
})
