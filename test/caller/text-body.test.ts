// /sat and /clauses take the DIMACS as a text/plain body (the other members in the query string), read by the same body
// reader as JSON: small bodies on the loop, large ones in the mill. Other operations refuse a text body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, expectRefusal, okData } from '../helper.js'

const TEXT = { 'content-type': 'text/plain' }
const UNSAT = 'c x and not x\np cnf 1 2\n1 0\n-1 0\n'

/** A satisfiable chain x1 → x2 → … → xn with x1 true, over 64 KiB of DIMACS. */
function chain(n: number): string {
  const lines = [`p cnf ${n} ${n}`, '1 0']
  for (let i = 1; i < n; i++) lines.push(`-${i} ${i + 1} 0`)
  return lines.join('\n') + '\n'
}

describe('text/plain DIMACS bodies', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
  })
  afterAll(async () => app.close())

  it('/sat solves a text body; want_model and timeout_ms come from the query string', async () => {
    const unsat = okData(await app.inject({ method: 'POST', url: '/api/v1/sat', headers: TEXT, payload: UNSAT }))
    expect(unsat.status).toBe('UNSAT')
    const sat = okData(await app.inject({ method: 'POST', url: '/api/v1/sat?want_model=false&timeout_ms=5000', headers: TEXT, payload: 'p cnf 2 1\n1 2 0\n' }))
    expect(sat).toMatchObject({ status: 'SAT', model: null })
  })

  it('a body over 64 KiB is parsed in the mill and answers the same as its JSON form', async () => {
    const dimacs = chain(12_000)
    expect(dimacs.length).toBeGreaterThan(64 * 1024)
    const text = okData(await app.inject({ method: 'POST', url: '/api/v1/sat?want_model=false', headers: TEXT, payload: dimacs }))
    const json = okData(await app.inject({ method: 'POST', url: '/api/v1/sat', payload: { dimacs, want_model: false } }))
    expect(text.status).toBe('SAT')
    expect({ ...text, stats: null, timing: null }).toEqual({ ...json, stats: null, timing: null })
  })

  it('/clauses takes a text body too', async () => {
    const data = okData(await app.inject({ method: 'POST', url: '/api/v1/clauses', headers: TEXT, payload: 'p cnf 3 3\n1 0\n-1 2 0\n-2 3 0\n' }))
    expect(data.simplified.vars).toBe(3)
  })

  it('refuses the member twice, a repeated query member, and a text body where the operation takes none', async () => {
    expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/sat?dimacs=x', headers: TEXT, payload: UNSAT }), 'invalid_input', 400)
    expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/sat?timeout_ms=1&timeout_ms=2', headers: TEXT, payload: UNSAT }), 'invalid_input', 400)
    const digest = expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/digest', headers: TEXT, payload: 'hello' }), 'invalid_input', 400)
    expect(digest.reason).toMatch(/content type/)
    // A query member of the wrong type is the schema's refusal, naming the field.
    const typed = expectRefusal(await app.inject({ method: 'POST', url: '/api/v1/sat?want_model=yes', headers: TEXT, payload: UNSAT }), 'invalid_input', 400)
    expect(JSON.stringify(typed.issues)).toContain('want_model')
  })
})
