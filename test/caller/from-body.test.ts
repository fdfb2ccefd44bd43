// /clauses, /quiz, /diff and /pin read a body over 64 KiB in the mill from its bytes (Operation.fromBody, issue #30 item 1): the same body
// padded past 64 KiB with JSON whitespace must get the answer or refusal it gets on the loop, byte for byte but the
// envelope's request id and timings, while the loop tripwire (LOOP_TRIPWIRE=throw) would fail a value brought back.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.js'
import { OFF_LOOP_BODY_BYTES } from '../../src/body-parse/reader.js'
import { pinRepository } from '../../src/access/pins.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: '60000' } })
})
afterAll(async () => app.close())

const post = (text: string, path = '/clauses') =>
  app.inject({ method: 'POST', url: `/api/v1${path}`, headers: { accept: 'application/json', 'content-type': 'application/json' }, payload: text })

/** The envelope without what differs from request to request. */
function comparable(body: string): unknown {
  const envelope = JSON.parse(body) as { meta?: unknown; data?: { created?: boolean } | null }
  delete envelope.meta
  // A pin written twice: created the first time only.
  if (typeof envelope.data?.created === 'boolean') delete envelope.data.created
  return envelope
}

function randomCnf(vars: number, clauses: number, seed: number): number[][] {
  let s = seed
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  return Array.from({ length: clauses }, () => Array.from({ length: 3 }, () => (Math.floor(next() * vars) + 1) * (next() < 0.5 ? -1 : 1)))
}

const bodies: Record<string, string> = {
  'clause arrays': JSON.stringify({ clauses: [[1, 2], [-1, 2], [2, 3, -3], [1, 2], [3, 4], [3, 4, 5]] }),
  'DIMACS text': JSON.stringify({ dimacs: 'p cnf 3 3\n1 0\n-1 2 0\n-2 3 0\n', max_listed: 1 }),
  'a wider CNF (decided UNDECIDED or not by simplification alone)': JSON.stringify({ clauses: randomCnf(300, 1200, 7), max_listed: 5 }),
  'a literal of the wrong type': JSON.stringify({ clauses: [[1, 'x']] }),
  'an unknown field': JSON.stringify({ clauses: [[1]], extra: true }),
  'both dimacs and clauses': JSON.stringify({ clauses: [[1]], dimacs: 'p cnf 1 1\n1 0\n' }),
  'neither': '{}',
  'an array for the whole body': '[[1, 2]]',
  'a zero literal': JSON.stringify({ clauses: [[1, 0]] }),
  'a variable over vars': JSON.stringify({ clauses: [[1, 5]], vars: 3 }),
  'a variable over the limit': JSON.stringify({ clauses: [[1, 200_000]] }),
  'a header over the variable limit': JSON.stringify({ dimacs: 'p cnf 200000 1\n1 0\n' }),
  'malformed DIMACS': JSON.stringify({ dimacs: 'p cnf 2 1\n1 x 0\n' }),
  'max_listed over its maximum': JSON.stringify({ clauses: [[1]], max_listed: 10_001 }),
  'JSON cut short': '{"clauses": [[1, 2]',
  'a __proto__ member': '{"clauses": [[1]], "__proto__": {"x": 1}}',
  'too deep': `{"clauses": ${'['.repeat(2_000)}${']'.repeat(2_000)}}`,
}

const quizBodies: Record<string, string> = {
  'a CNF and literals': JSON.stringify({ clauses: [[1, 2], [-1, 3], [-2, -3]], assignment: [1, -2, 3] }),
  'a CNF by number': JSON.stringify({ dimacs: 'p cnf 3 2\n1 2 0\n-1 3 0\n', assignment: { 1: false, 2: true }, max_listed: 1 }),
  'a formula by name': JSON.stringify({ formula: { and: [{ var: 'x' }, { or: [{ var: 'y' }, { var: 'z' }] }] }, assignment: { x: true, y: false } }),
  'a wider CNF': JSON.stringify({ clauses: randomCnf(300, 1200, 3), assignment: Array.from({ length: 300 }, (_, v) => (v % 3 ? v + 1 : -(v + 1))), max_listed: 4 }),
  'a formula with a literal list': JSON.stringify({ formula: { var: 'x' }, assignment: [1] }),
  'a malformed formula': JSON.stringify({ formula: { nand: [] }, assignment: {} }),
  'a formula over its name length': JSON.stringify({ formula: { var: 'n'.repeat(300) }, assignment: {} }),
  'a variable outside the CNF': JSON.stringify({ clauses: [[1, 2]], assignment: [7] }),
  'a variable given both values': JSON.stringify({ clauses: [[1, 2]], assignment: [1, -1] }),
  'no assignment': JSON.stringify({ clauses: [[1]] }),
  'formula and clauses': JSON.stringify({ clauses: [[1]], formula: { var: 'x' }, assignment: {} }),
  'a zero literal': JSON.stringify({ clauses: [[0]], assignment: [] }),
}

const lines = (n: number, salt: string) => Array.from({ length: n }, (_, i) => `line ${i}${i % 7 === 0 ? salt : ''}`).join('\n') + '\n'
const diffBodies: Record<string, string> = {
  'lines': JSON.stringify({ a: 'one\ntwo\nthree\n', b: 'one\n2\nthree\nfour\n' }),
  'words with context': JSON.stringify({ a: 'the quick brown fox', b: 'the slow brown fox', mode: 'words', context: 1 }),
  'chars': JSON.stringify({ a: 'kitten', b: 'sitting', mode: 'chars' }),
  'longer texts': JSON.stringify({ a: lines(900, ''), b: lines(900, ' changed') }),
  'json values': JSON.stringify({ a: { name: 'ncm', tags: ['a', 'b'] }, b: { name: 'ncm', tags: ['a', 'c'], 'x/y': 1 }, mode: 'json' }),
  'a json patch applied': JSON.stringify({ a: { n: 1, list: [1, 2] }, patch: [{ op: 'replace', path: '/n', value: 2 }, { op: 'add', path: '/list/-', value: 3 }], mode: 'json' }),
  'a patch that cannot apply': JSON.stringify({ a: { n: 1 }, patch: [{ op: 'remove', path: '/missing' }], mode: 'json' }),
  'a failing test op': JSON.stringify({ a: { n: 1 }, patch: [{ op: 'test', path: '/n', value: 2 }], mode: 'json' }),
  'a bad pointer': JSON.stringify({ a: {}, patch: [{ op: 'add', path: 'no-slash', value: 1 }], mode: 'json' }),
  'copies past DIFF_PATCH_MAX_WEIGHT': JSON.stringify({ a: { d: 'x'.repeat(4000) }, patch: Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` })), mode: 'json' }),
  'a value nested too deep': JSON.stringify({ a: JSON.parse('['.repeat(300) + ']'.repeat(300)), b: [], mode: 'json' }),
  'an object in lines mode': JSON.stringify({ a: { x: 1 }, b: 'x' }),
  'an array in words mode': JSON.stringify({ a: [1], b: 'x', mode: 'words' }),
  'patch outside json mode': JSON.stringify({ a: 'x', b: 'y', patch: [] }),
  'neither b nor patch': JSON.stringify({ a: {}, mode: 'json' }),
  'an unknown mode': JSON.stringify({ a: 'x', b: 'y', mode: 'bytes' }),
}

// In the order given: the read reads what the first write pins.
const pinBodies: Record<string, string> = {
  'a text': JSON.stringify({ content: 'pinned from the mill or the loop\n', label: 'either' }),
  'a read of it': JSON.stringify({ digest: 'sha256:' + createHash('sha256').update('pinned from the mill or the loop\n').digest('hex') }),
  'a read in capitals': JSON.stringify({ digest: 'SHA256:' + createHash('sha256').update('pinned from the mill or the loop\n').digest('hex').toUpperCase() }),
  'a JSON value, keys in any order': JSON.stringify({ json: { z: [1, 2, { b: true, a: null }], a: 'x', n: 1e21 } }),
  'two-byte text': JSON.stringify({ content: 'é'.repeat(3000) }),
  'an unknown digest': JSON.stringify({ digest: 'sha256:' + '0'.repeat(64) }),
  'a malformed digest': JSON.stringify({ digest: 'sha256:xyz' }),
  'content and json': JSON.stringify({ content: 'a', json: 1 }),
  'a label on a read': JSON.stringify({ digest: 'sha256:' + '0'.repeat(64), label: 'x' }),
  'a lone surrogate': '{"content": "half \\ud800 a pair"}',
  'json nested too deep': JSON.stringify({ json: JSON.parse('['.repeat(300) + ']'.repeat(300)) }),
  'nothing': '{}',
}

describe('/clauses, /quiz, /diff and /pin from their bytes in the mill', () => {
  const cases = [
    ...Object.entries(bodies).map(([name, text]) => ['/clauses', name, text]),
    ...Object.entries(quizBodies).map(([name, text]) => ['/quiz', name, text]),
    ...Object.entries(diffBodies).map(([name, text]) => ['/diff', name, text]),
    ...Object.entries(pinBodies).map(([name, text]) => ['/pin', name, text]),
  ]
  for (const [path, name, text] of cases as Array<[string, string, string]>) {
    it(`${path}, ${name}: the same answer padded past ${OFF_LOOP_BODY_BYTES} bytes as on the loop`, async () => {
      expect(text.length).toBeLessThanOrEqual(OFF_LOOP_BODY_BYTES)
      const onLoop = await post(text, path)
      const padded = await post(text + ' '.repeat(OFF_LOOP_BODY_BYTES + 1), path)
      expect(onLoop.statusCode).not.toBe(500)
      expect(padded.statusCode, padded.body).toBe(onLoop.statusCode)
      expect(padded.headers['content-type']).toBe(onLoop.headers['content-type'])
      expect(comparable(padded.body)).toEqual(comparable(onLoop.body))
    })
  }

  it('a refused /pin write read in the mill stores nothing', async () => {
    const pins = async () => (await pinRepository(app.store.sql).latest(1_000)).length
    const before = await pins()
    for (const text of [pinBodies['content and json']!, pinBodies['a lone surrogate']!, pinBodies['json nested too deep']!]) {
      const padded = await post(text + ' '.repeat(OFF_LOOP_BODY_BYTES + 1), '/pin')
      expect(padded.statusCode, padded.body).toBeGreaterThanOrEqual(400)
    }
    expect(await pins()).toBe(before)
  })

  it('a clause list too wide for the loop is answered from the mill (the tripwire would throw on its values)', async () => {
    const clauses = randomCnf(20_000, 25_000, 11)
    const res = await post(JSON.stringify({ clauses, vars: 20_000, max_listed: 3 }))
    expect(res.statusCode, res.body).toBe(200)
    const data = JSON.parse(res.body).data
    expect(data).toMatchObject({ vars: 20_000, clauses: 25_000, literals: 75_000 })
  })

  it('a /diff patch too wide for the loop is applied in the mill', async () => {
    const patch = Array.from({ length: 9_000 }, (_, i) => ({ op: 'add', path: `/k${i}`, value: i }))
    const res = await post(JSON.stringify({ a: {}, patch, mode: 'json' }), '/diff')
    expect(res.statusCode, res.body).toBe(200)
    const data = JSON.parse(res.body).data
    expect(data).toMatchObject({ mode: 'json', verified: true })
    expect(data.patch).toHaveLength(9_000)
  })

  it('a /quiz assignment too wide for the loop is answered from the mill', async () => {
    const assignment = Array.from({ length: 40_000 }, (_, v) => v + 1)
    const res = await post(JSON.stringify({ clauses: [[1, -2], [40_000]], assignment }), '/quiz')
    expect(res.statusCode, res.body).toBe(200)
    expect(JSON.parse(res.body).data).toMatchObject({ satisfied: true, checked: 'cnf', parts: 2 })
  })
})

describe('/pin from its bytes, with a token required to write', () => {
  let guarded: FastifyInstance
  beforeAll(async () => {
    guarded = await buildTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: '60000', ADMIN_TOKEN: 'from-body-admin-token-0123456789abcdef' } })
  })
  afterAll(async () => guarded.close())
  const send = (text: string, path = '/pin') =>
    guarded.inject({ method: 'POST', url: `/api/v1${path}`, headers: { accept: 'application/json', 'content-type': 'application/json' }, payload: text })

  // A pin write is asked of the value before its validation, on the loop and in the mill alike: an invalid write
  // without a credential is refused for the credential. Work the route sends to the mill needs run:heavy, asked after
  // the input's own checks: small work is answered, an invalid input refused for itself.
  const anonymous: Array<[string, string, string]> = [
    ['/pin', 'a write', JSON.stringify({ content: 'x' })],
    ['/pin', 'an invalid write', JSON.stringify({ content: 'x', json: 1 })],
    ['/pin', 'a read', JSON.stringify({ digest: 'sha256:' + '0'.repeat(64) })],
    ['/clauses', 'a small CNF', JSON.stringify({ clauses: [[1, 2], [-1]] })],
    ['/clauses', 'a header over the loop\'s variables', JSON.stringify({ dimacs: 'p cnf 20000 1\n1 0\n' })],
    ['/clauses', 'an invalid input', JSON.stringify({ dimacs: 'p cnf 20000 1\n1 0\n', clauses: [] })],
    ['/quiz', 'a large CNF', JSON.stringify({ dimacs: 'p cnf 20000 1\n1 0\n', assignment: [1] })],
    // Counted before it is parsed: over the loop's 16,384 values, malformed or not.
    ['/quiz', 'a large formula', JSON.stringify({ formula: { and: new Array(17_000).fill(0) }, assignment: {} })],
    ['/diff', 'a patch that grows past the loop\'s size', JSON.stringify({ a: { d: 'x'.repeat(50_000) }, patch: Array.from({ length: 4 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` })), mode: 'json' })],
    ['/diff', 'a small diff', JSON.stringify({ a: 'a\n', b: 'b\n' })],
  ]
  const expected = [401, 401, 404, 200, 401, 400, 401, 401, 401, 200]
  for (const [[path, name, text], status] of anonymous.map((c, i) => [c, expected[i]] as const)) {
    it(`${path}, ${name}, without a credential: ${status}, the same answer padded past ${OFF_LOOP_BODY_BYTES} bytes`, async () => {
      expect(text.length).toBeLessThanOrEqual(OFF_LOOP_BODY_BYTES)
      const onLoop = await send(text, path)
      expect(onLoop.statusCode, onLoop.body).toBe(status)
      const padded = await send(text + ' '.repeat(OFF_LOOP_BODY_BYTES + 1), path)
      expect(padded.statusCode, padded.body).toBe(onLoop.statusCode)
      expect(comparable(padded.body)).toEqual(comparable(onLoop.body))
    })
  }

  it('a JSON value too wide for the loop is pinned from the mill, with the digest of its canonical form', async () => {
    const json = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${19_999 - i}`, [i]]))
    const touched = guarded.callerCounters.storeTouched
    const res = await guarded.inject({
      method: 'POST', url: '/api/v1/pin', payload: JSON.stringify({ json }),
      headers: { 'content-type': 'application/json', authorization: 'Bearer from-body-admin-token-0123456789abcdef' },
    })
    expect(res.statusCode, res.body).toBe(200)
    const canonical = JSON.stringify(Object.fromEntries(Object.entries(json).sort(([a], [b]) => (a < b ? -1 : 1))))
    expect(JSON.parse(res.body).data).toMatchObject({ action: 'pinned', digest: 'sha256:' + createHash('sha256').update(canonical).digest('hex'), size: canonical.length })
    // Counted as a call that touched the store, as on the loop.
    expect(guarded.callerCounters.storeTouched).toBe(touched + 1)
  })
})
