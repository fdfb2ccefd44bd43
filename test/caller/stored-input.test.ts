// /sat and /jsonsat make a body over 64 KiB into their job's stored input in the mill (Operation.fromStored, issue #30
// item 1): the same body padded past 64 KiB with JSON whitespace must get the answer or refusal it gets on the loop,
// sync or async, and its job stores and runs from the input's JSON bytes, in this process or after a restart.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json, okData } from '../helper.js'
import { padded, comparable, postText as post } from '../off-loop.js'
import { OFF_LOOP_BODY_BYTES } from '../../src/body-parse/reader.js'
import { createJobRepository } from '../../src/jobs/repository.js'
import { createMill } from '../../src/mill/pool.js'
import { createRegistry, registry } from '../../src/caller/registry.js'
import { defineOperation } from '../../src/caller/operation.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(async () => app.close())



const satBodies: Record<string, string> = {
  'a SAT CNF': JSON.stringify({ dimacs: 'p cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n' }),
  'an UNSAT CNF without a model': JSON.stringify({ dimacs: 'p cnf 1 2\n1 0\n-1 0\n', want_model: false, timeout_ms: 2000 }),
  'an LRAT proof': JSON.stringify({ dimacs: 'p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n', proof: 'lrat' }),
  'assumptions': JSON.stringify({ dimacs: 'p cnf 3 2\n1 2 0\n-2 3 0\n', assumptions: [-1, -3] }),
  'models enumerated': JSON.stringify({ dimacs: 'p cnf 3 1\n1 2 3 0\n', models: 10 }),
  'a conflict budget': JSON.stringify({ dimacs: 'p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n', max_conflicts: 1 }),
  'malformed DIMACS (refused by the run)': JSON.stringify({ dimacs: 'p cnf 2 1\n1 x 0\n' }),
  'a header over the variable limit': JSON.stringify({ dimacs: 'p cnf 200000 1\n1 0\n' }),
  'an assumption above the header': JSON.stringify({ dimacs: 'p cnf 2 1\n1 0\n', assumptions: [3] }),
  'models over the limit': JSON.stringify({ dimacs: 'p cnf 2 1\n1 0\n', models: 1001 }),
  'a proof while enumerating': JSON.stringify({ dimacs: 'p cnf 2 1\n1 0\n', models: 2, proof: 'drat' }),
  'a zero assumption': JSON.stringify({ dimacs: 'p cnf 2 1\n1 0\n', assumptions: [0] }),
  'an unknown field': JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n', extra: 1 }),
  'timeout_ms over the sync cap': JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n', timeout_ms: 120_000 }),
  'no dimacs': '{}',
  'an array for the whole body': '[1]',
  'JSON cut short': '{"dimacs": "p cnf 1 1',
  'a __proto__ member': '{"dimacs": "p cnf 1 1\\n1 0\\n", "__proto__": {"x": 1}}',
}

const formula = { and: [{ or: [{ var: 'alice' }, { var: 'bob' }] }, { implies: [{ var: 'alice' }, { not: { var: 'carol' } }] }, { exactly: { k: 1, of: [{ var: 'bob' }, { var: 'carol' }] } }] }
const jsonsatBodies: Record<string, string> = {
  'a SAT formula': JSON.stringify({ formula }),
  'a contradiction without a model': JSON.stringify({ formula: { and: [{ var: 'p' }, { not: { var: 'p' } }] }, want_model: false }),
  'a DRAT proof': JSON.stringify({ formula: { and: [{ xor: [{ var: 'a' }, { var: 'b' }] }, { iff: [{ var: 'a' }, { var: 'b' }] }] }, proof: 'drat' }),
  'the CNF kept': JSON.stringify({ formula, want_cnf: true }),
  'a formula 8,000 deep': `{"formula":${'{"not":'.repeat(8_000)}{"var":"x"}${'}'.repeat(8_000)}}`,
  'a malformed formula': JSON.stringify({ formula: { nand: [{ var: 'a' }] } }),
  'a name over its length': JSON.stringify({ formula: { var: 'n'.repeat(300) } }),
  'an unknown field': JSON.stringify({ formula: true, extra: 1 }),
  'no formula': '{}',
}

describe('/sat and /jsonsat from their bytes in the mill', () => {
  const cases = [
    ...Object.entries(satBodies).map(([name, text]) => ['/sat', name, text]),
    ...Object.entries(jsonsatBodies).map(([name, text]) => ['/jsonsat', name, text]),
  ] as Array<[string, string, string]>
  for (const [path, name, text] of cases) {
    it(`${path}, ${name}: the same answer padded past ${OFF_LOOP_BODY_BYTES} bytes as on the loop`, async () => {
      expect(text.length).toBeLessThanOrEqual(OFF_LOOP_BODY_BYTES)
      const onLoop = await post(app, path, text)
      const large = await post(app, path, padded(text))
      expect(onLoop.statusCode).not.toBe(500)
      expect(large.statusCode, large.body).toBe(onLoop.statusCode)
      expect(comparable(large.body)).toEqual(comparable(onLoop.body))
    })
  }

  it('its job stores the input as JSON and runs it from those bytes in the mill (the loop never parses it)', async () => {
    const run = vi.spyOn(app.mill, 'run')
    try {
      const dimacs = `c ${'x'.repeat(80_000)}\np cnf 2 2\n1 2 0\n-1 0\n`
      const res = await post(app, '/sat', JSON.stringify({ dimacs, timeout_ms: 3000 }), { prefer: 'respond-async' })
      expect(res.statusCode, res.body).toBe(202)
      const id = json(res).data.id
      const settled = await app.jobs.settled(id)
      expect(settled.ok).toBe(true)
      const stored = await createJobRepository(app.store.sql).input(id)
      expect(stored!.value()).toEqual({ dimacs, timeout_ms: 3000, want_model: true, proof: 'none' })
      const tasks = run.mock.calls.map((call) => call[0])
      expect(tasks).toContain('jobs.storedInput')
      expect(tasks).toContain('logic.satStored')
      expect(tasks).not.toContain('logic.sat')
      const answer = okData(await app.inject({ url: `/api/v1/jobs/${id}/result` }))
      expect(answer).toMatchObject({ status: 'SAT', model: [-1, 2], verified: true })
    } finally {
      run.mockRestore()
    }
  })

  it('a value input over 64 KiB (an MCP call\'s) runs from the JSON its job stored, never cloned to the mill as a value', async () => {
    const run = vi.spyOn(app.mill, 'run')
    try {
      const input = { dimacs: `c ${'v'.repeat(80_000)}\np cnf 2 1\n-1 -2 0\n`, want_model: true, proof: 'none' }
      const { job } = await app.jobs.submit({ op: 'sat', surface: 'caller', owner: 'anonymous', input })
      const settled = await app.jobs.settled(job.id)
      expect(settled.ok).toBe(true)
      expect(run.mock.calls.map((call) => call[0])).toEqual(['logic.satStored'])
      const small = await app.jobs.submit({ op: 'sat', surface: 'caller', owner: 'anonymous', input: { dimacs: 'p cnf 1 1\n1 0\n', want_model: true, proof: 'none' } })
      expect((await app.jobs.settled(small.job.id)).ok).toBe(true)
      expect(run.mock.calls.map((call) => call[0])).toEqual(['logic.satStored', 'logic.sat'])
    } finally {
      run.mockRestore()
    }
  })

  it('an async timeout_ms up to JOB_MAX_MS is kept; past it the refusal is the loop\'s, and no job is made', async () => {
    const within = JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n', timeout_ms: 120_000 })
    const res = await post(app, '/sat', padded(within), { prefer: 'respond-async' })
    expect(res.statusCode, res.body).toBe(202)
    const stored = await createJobRepository(app.store.sql).input(json(res).data.id)
    expect((stored!.value() as { timeout_ms: number }).timeout_ms).toBe(120_000)
    const past = JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n', timeout_ms: 99_000_000 })
    const onLoop = await post(app, '/sat', past, { prefer: 'respond-async' })
    const large = await post(app, '/sat', padded(past), { prefer: 'respond-async' })
    expect(onLoop.statusCode, onLoop.body).toBe(422)
    expect(comparable(large.body)).toEqual(comparable(onLoop.body))
  })

  it('a refused large body stores no job, sync or async', async () => {
    const jobs = async () => (await app.jobs.list({ limit: 500 })).rows.length
    const before = await jobs()
    const refused: Array<[string, string]> = [
      ['/sat', satBodies['a header over the variable limit']!],
      ['/sat', satBodies['an unknown field']!],
      ['/sat', JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n', timeout_ms: 99_000_000 })],
      ['/jsonsat', jsonsatBodies['a malformed formula']!],
      ['/jsonsat', jsonsatBodies['a name over its length']!],
    ]
    for (const [path, text] of refused) {
      for (const headers of [{}, { prefer: 'respond-async' }] as Array<Record<string, string>>) {
        const res = await post(app, path, padded(text), headers)
        expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400)
        expect(res.statusCode).toBeLessThan(500)
      }
    }
    expect(await jobs()).toBe(before)
  })

  it('an Idempotency-Key replays the large body\'s job; another input under the key is a conflict', async () => {
    const text = padded(JSON.stringify({ dimacs: 'p cnf 2 1\n1 2 0\n' }))
    const headers = { prefer: 'respond-async', 'idempotency-key': 'stored-input-replay' }
    const first = await post(app, '/sat', text, headers)
    const again = await post(app, '/sat', text, headers)
    expect(first.statusCode, first.body).toBe(202)
    expect(json(again).data.id).toBe(json(first).data.id)
    const other = await post(app, '/sat', padded(JSON.stringify({ dimacs: 'p cnf 2 1\n-1 2 0\n' })), headers)
    expect(other.statusCode, other.body).toBe(409)
  })
})

describe('text/plain DIMACS bodies over 64 KiB, read in the mill with their query members', () => {
  // A trailing comment pads a body past 64 KiB without changing its CNF (nor the line of a malformed clause).
  const cases: Array<[string, string, string, Record<string, string>?]> = [
    ['/sat', '', 'p cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n'],
    ['/sat', '?want_model=false&timeout_ms=5000', 'p cnf 1 2\n1 0\n-1 0\n'],
    ['/sat', '?proof=drat', 'p cnf 1 2\n1 0\n-1 0\n'],
    ['/sat', '?models=3', 'p cnf 2 1\n1 2 0\n'],
    ['/sat', '?dimacs=x', 'p cnf 1 1\n1 0\n'],
    ['/sat', '?timeout_ms=1&timeout_ms=2', 'p cnf 1 1\n1 0\n'],
    ['/sat', '?want_model=yes', 'p cnf 1 1\n1 0\n'],
    ['/sat', '?timeout_ms=120000', 'p cnf 1 1\n1 0\n'],
    ['/sat', '?timeout_ms=120000', 'p cnf 1 1\n1 0\n', { prefer: 'respond-async' }],
    ['/sat', '?timeout_ms=99000000', 'p cnf 1 1\n1 0\n', { prefer: 'respond-async' }],
    ['/sat', '', 'p cnf 200000 1\n1 0\n'],
    ['/sat', '', 'p cnf 2 1\n1 x 0\n'],
    ['/clauses', '?max_listed=1', 'p cnf 3 3\n1 0\n-1 2 0\n-2 3 0\n'],
    ['/clauses', '?vars=3', 'p cnf 3 3\n1 0\n-1 2 0\n-2 3 0\n'],
  ]
  for (const [path, query, text, headers = {}] of cases) {
    it(`${path}${query}${headers.prefer ? ' (async)' : ''}: the same answer padded past ${OFF_LOOP_BODY_BYTES} bytes`, async () => {
      const send = (body: string) => app.inject({ method: 'POST', url: `/api/v1${path}${query}`, headers: { 'content-type': 'text/plain', ...headers }, payload: body })
      const onLoop = await send(text)
      const large = await send(`${text}c ${'x'.repeat(OFF_LOOP_BODY_BYTES)}\n`)
      expect(onLoop.statusCode).not.toBe(500)
      expect(large.statusCode, large.body).toBe(onLoop.statusCode)
      if (onLoop.statusCode === 202) return
      expect(comparable(large.body)).toEqual(comparable(onLoop.body))
    })
  }

  it('a large text body\'s job stores it as JSON with its query members, and runs from those bytes', async () => {
    const run = vi.spyOn(app.mill, 'run')
    try {
      const dimacs = `p cnf 2 2\n1 2 0\n-1 0\nc ${'y'.repeat(OFF_LOOP_BODY_BYTES)}\n`
      const res = await app.inject({ method: 'POST', url: '/api/v1/sat?want_model=false', headers: { 'content-type': 'text/plain', prefer: 'respond-async' }, payload: dimacs })
      expect(res.statusCode, res.body).toBe(202)
      const id = json(res).data.id
      expect((await app.jobs.settled(id)).ok).toBe(true)
      expect((await createJobRepository(app.store.sql).input(id))!.value()).toEqual({ want_model: false, dimacs, proof: 'none' })
      expect(run.mock.calls.map((call) => call[0])).toEqual(['jobs.storedInput', 'logic.satStored'])
    } finally {
      run.mockRestore()
    }
  })
})

describe('a large input stored by one process is run from its bytes by the next', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ncm-stored-input-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('a queued job whose stored input is over 64 KiB runs from those bytes after a restart', async () => {
    const env = { DATABASE_PATH: join(dir, 'hub.sqlite') }
    const first = await buildTestApp({ env })
    const formula = { and: [{ var: 'p' }, { or: Array.from({ length: 6_000 }, (_, i) => ({ var: `v${i}` })) }] }
    const text = JSON.stringify({ formula, want_model: false, proof: 'none', want_cnf: false })
    expect(text.length).toBeGreaterThan(OFF_LOOP_BODY_BYTES)
    // A row and its parts as a submission leaves them, its run never started: the process stops first.
    const digest = createHash('sha256').update('jsonsat').update('\0').update(text).digest('hex')
    await createJobRepository(first.store.sql).insert({
      id: 'stored-before-restart', op: 'jsonsat', surface: 'caller', owner: 'anonymous', inputParts: [Buffer.from(text)], inputDigest: digest, idempotencyKey: null, createdAt: Date.now(),
    })
    await first.close()

    // Its mill watched from the start: the job runs as soon as the queue starts.
    const mill = createMill({ threads: 1, maxQueue: 16 })
    const run = vi.spyOn(mill, 'run')
    const next = await buildTestApp({ env, mill })
    try {
      const settled = await next.jobs.settled('stored-before-restart')
      expect(settled.ok, JSON.stringify(settled.job.refuse)).toBe(true)
      expect(run.mock.calls.map((call) => call[0])).toContain('logic.jsonsatStored')
      expect(okData(await next.inject({ url: '/api/v1/jobs/stored-before-restart/result' }))).toMatchObject({ status: 'SAT', vars: 6_001, model: null })
    } finally {
      run.mockRestore()
      await next.close()
    }
  })
})

describe('/sat and /jsonsat from their bytes, with a token required for heavy work and pins', () => {
  let guarded: FastifyInstance
  beforeAll(async () => {
    guarded = await buildTestApp({ env: { ADMIN_TOKEN: 'stored-input-admin-token-0123456789abcdef' } })
  })
  afterAll(async () => guarded.close())

  // A pin write is asked of the value before its validation; heavy work (run:heavy) after the input's checks.
  const anonymous: Array<[string, string, string]> = [
    ['/sat', 'a proof', JSON.stringify({ dimacs: 'p cnf 1 2\n1 0\n-1 0\n', proof: 'drat' })],
    ['/sat', 'an invalid proof request', JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n', proof: 'drat', models: 2 })],
    ['/sat', 'a solve', JSON.stringify({ dimacs: 'p cnf 1 1\n1 0\n' })],
    ['/sat', 'a header over the limit', JSON.stringify({ dimacs: 'p cnf 200000 1\n1 0\n' })],
    ['/sat', 'an invalid input', JSON.stringify({ dimacs: 7 })],
    ['/jsonsat', 'the CNF kept', JSON.stringify({ formula: true, want_cnf: true })],
    ['/jsonsat', 'a malformed formula', JSON.stringify({ formula: { nand: [] } })],
  ]
  for (const [path, name, text] of anonymous) {
    it(`${path}, ${name}, without a credential: the same refusal padded past ${OFF_LOOP_BODY_BYTES} bytes`, async () => {
      const onLoop = await post(guarded, path, text)
      expect(onLoop.statusCode, onLoop.body).toBeGreaterThanOrEqual(400)
      expect(onLoop.statusCode).toBeLessThan(500)
      const large = await post(guarded, path, padded(text))
      expect(large.statusCode, large.body).toBe(onLoop.statusCode)
      expect(comparable(large.body)).toEqual(comparable(onLoop.body))
    })
  }
})

describe('the registry holds an operation to the rules the mill reads its stored input by', () => {
  const sat = registry.byName('sat')!
  const jsonsat = registry.byName('jsonsat')!

  it('takes /sat and /jsonsat as they are: their own schema and input action are the mill\'s', () => {
    expect(() => createRegistry([sat, jsonsat])).not.toThrow()
  })

  it('refuses an operation whose schema or input action is not the one the mill reads by, one without a run from bytes, and one the mill has no rules for', () => {
    const otherSchema = defineOperation({ ...sat, input: sat.input.describe('another schema object') })
    expect(() => createRegistry([otherSchema])).toThrow(/not its own input and inputAction/)
    const otherAction = defineOperation({ ...jsonsat, inputAction: () => null })
    expect(() => createRegistry([otherAction])).toThrow(/not its own input and inputAction/)
    const { fromStored: _dropped, ...withoutRun } = sat
    expect(() => createRegistry([defineOperation(withoutRun)])).toThrow(/fromStored is for heavy operations with rules/)
    const noRules = defineOperation({ ...sat, name: 'not-stored', path: '/not-stored' })
    expect(() => createRegistry([noRules])).toThrow(/fromStored is for heavy operations with rules/)
  })
})
