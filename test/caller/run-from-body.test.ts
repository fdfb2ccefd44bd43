// /run and /cli read a body over 64 KiB in the mill (issue #30 item 1): a batch or a command line comes back with no
// more values than a body parsed on the loop may hold, and a job whose input does not fit that budget comes back as
// its input's bytes, read as its own route reads such a body. So: the same body padded past 64 KiB gets the answer it
// gets on the loop, and a job too wide for the loop answers as its own route answers the same input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { padded, comparable, postText as post } from '../off-loop.js'
import { OFF_LOOP_BODY_BYTES } from '../../src/body-parse/reader.js'
import { LOOP_BODY_MAX_VALUES, valuesUpTo } from '../../src/json/loop-rule.js'
import { runItemsFromBody, type RunItems } from '../../src/mill/tasks/run-items.js'
import { MAX_BATCH } from '../../src/inputs/run.js'

const ADMIN_TOKEN = 'run-from-body-admin-token-0123456789'
// Under the tripwire (LOOP_TRIPWIRE=throw), as every test host: nothing here may hand the loop more than it may hold.
let app: FastifyInstance
let guarded: FastifyInstance
// Without it: an operation that reads no body in the mill gets a wide value, as its route does.
let lenient: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp({ env: { LOOP_TRIPWIRE: 'throw' } })
  guarded = await buildTestApp({ env: { ADMIN_TOKEN, LOOP_TRIPWIRE: 'throw' } })
  lenient = await buildTestApp({ env: { LOOP_TRIPWIRE: 'off' } })
})
afterAll(async () => Promise.all([app.close(), guarded.close(), lenient.close()]))



/** A CNF of `n` clauses as JSON arrays: 4 values a clause, so past LOOP_BODY_MAX_VALUES from about 8,200 clauses. */
const chainClauses = (n: number) => Array.from({ length: n }, (_, i) => [i + 1, -(i + 2), i + 3])
const wide = {
  clauses: { clauses: chainClauses(9_000), max_listed: 50 },
  quiz: { clauses: chainClauses(9_000), assignment: Array.from({ length: 9_002 }, (_, i) => (i % 3 === 0 ? -(i + 1) : i + 1)), max_listed: 50 },
  diff: { a: Array.from({ length: 20_000 }, (_, i) => i), b: Array.from({ length: 20_000 }, (_, i) => (i % 1000 === 0 ? -i : i)), mode: 'json' },
  sat: { dimacs: 'p cnf 40000 2\n1 2 0\n-1 -2 0\n', assumptions: Array.from({ length: 35_000 }, (_, i) => i + 3) },
  jsonsat: { formula: { and: Array.from({ length: 17_000 }, (_, i) => ({ var: `v${i}` })) } },
  pack: null as unknown,
}

describe('a /run body padded past 64 KiB answers as on the loop', () => {
  const bodies: Record<string, string> = {
    'a single light job': JSON.stringify({ op: 'captions' }),
    'a single heavy job': JSON.stringify({ op: 'sat', input: { dimacs: 'p cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n' } }),
    'a single job refused by its schema': JSON.stringify({ op: 'sat', input: { dimacs: 7 } }),
    'a single unknown operation': JSON.stringify({ op: 'nope' }),
    'a batch of light, heavy and refused jobs': JSON.stringify({
      batch: [
        { op: 'surface' },
        { op: '/clauses', input: { clauses: [[1, 2], [-1]] } },
        { op: 'quiz', input: { dimacs: 'p cnf 2 1\n1 2 0\n', assignment: [1, -2] } },
        { op: 'diff', input: { a: 'x\ny\n', b: 'x\nz\n' } },
        { op: 'SAT', input: { dimacs: 'p cnf 1 2\n1 0\n-1 0\n' } },
        { op: 'jsonsat', input: { formula: { or: [{ var: 'a' }, { var: 'b' }] } } },
        { op: 'nope' },
        { op: 'run', input: { op: 'captions' } },
      ],
    }),
    'a batch that stops at its first refusal': JSON.stringify({ batch: [{ op: 'captions' }, { op: 'chat', input: {} }, { op: 'surface' }], stop_on_refusal: true }),
    [`a batch over ${MAX_BATCH} jobs`]: JSON.stringify({ batch: Array.from({ length: MAX_BATCH + 1 }, () => ({ op: 'captions' })) }),
    'an empty batch': JSON.stringify({ batch: [] }),
    'an unknown member': JSON.stringify({ op: 'captions', extra: 1 }),
    'both op and batch': JSON.stringify({ op: 'captions', batch: [{ op: 'surface' }] }),
    'an array for the whole body': '[1]',
    'JSON cut short': '{"batch": [{"op": "captions"}',
    'a __proto__ member': '{"op": "captions", "__proto__": {"x": 1}}',
  }
  for (const [name, text] of Object.entries(bodies)) {
    it(name, async () => {
      expect(text.length).toBeLessThanOrEqual(OFF_LOOP_BODY_BYTES)
      const [onLoop, inMill] = [await post(app, '/run', text), await post(app, '/run', padded(text))]
      expect(inMill.statusCode).toBe(onLoop.statusCode)
      expect(comparable(inMill.body)).toEqual(comparable(onLoop.body))
    })
  }
})

describe('a job too wide for the loop is read as its own route reads the same input', () => {
  beforeAll(() => {
    wide.pack = { items: Array.from({ length: 12_000 }, (_, i) => ({ id: `i${i}`, size: (i % 7) + 1 })), capacity: 50 }
  })
  const ops = ['clauses', 'quiz', 'diff', 'sat', 'jsonsat'] as const
  for (const op of ops) {
    it(`${op}: over the loop's values, and the answer of POST /${op}`, async () => {
      const input = wide[op]
      expect(valuesUpTo(input, LOOP_BODY_MAX_VALUES)).toBeNull()
      const route = await post(app, `/${op}`, JSON.stringify(input))
      expect(route.statusCode).toBe(200)
      const ran = await post(app, '/run', JSON.stringify({ op, input }))
      expect(ran.statusCode).toBe(200)
      const [result] = json(ran).data.results
      expect(result).toMatchObject({ op, ok: true, refuse: null })
      expect(comparable(JSON.stringify(result.data))).toEqual(comparable(JSON.stringify(json(route).data)))
    })
  }

  it('in a batch, beside small jobs, each answers as its route does, in order', async () => {
    const batch = [{ op: 'captions' }, { op: 'clauses', input: wide.clauses }, { op: 'surface' }, { op: 'sat', input: wide.sat }]
    const ran = await post(app, '/run', JSON.stringify({ batch }))
    expect(ran.statusCode).toBe(200)
    const { results, completed } = json(ran).data
    expect(completed).toBe(4)
    expect(results.map((r: { op: string }) => r.op)).toEqual(['captions', 'clauses', 'surface', 'sat'])
    const route = await post(app, '/sat', JSON.stringify(wide.sat))
    expect(comparable(JSON.stringify(results[3].data))).toEqual(comparable(JSON.stringify(json(route).data)))
  })

  it('a wide job refused by its schema gets its route\'s refusal', async () => {
    const input = { ...wide.clauses, extra: true }
    const route = await post(app, '/clauses', JSON.stringify(input))
    const ran = await post(app, '/run', JSON.stringify({ batch: [{ op: 'clauses', input }] }))
    const [result] = json(ran).data.results
    expect(result.ok).toBe(false)
    expect(result.refuse).toMatchObject({ code: json(route).refuse.code, issues: json(route).refuse.issues })
  })

  it('an operation that reads no body in the mill gets the value its route gets: the same answer', async () => {
    const route = await post(lenient, '/pack', JSON.stringify(wide.pack))
    const ran = await post(lenient, '/run', JSON.stringify({ op: 'pack', input: wide.pack }))
    expect(ran.statusCode).toBe(route.statusCode)
    if (route.statusCode === 200) expect(comparable(JSON.stringify(json(ran).data.results[0].data))).toEqual(comparable(JSON.stringify(json(route).data)))
    else expect(json(ran).refuse.code).toBe(json(route).refuse.code)
  })

  it('and under the tripwire, that value trips it as its own route would', async () => {
    expect((await post(app, '/pack', JSON.stringify(wide.pack))).statusCode).toBe(500)
    expect((await post(app, '/run', JSON.stringify({ op: 'pack', input: wide.pack }))).statusCode).toBe(500)
  })

  it('with ADMIN_TOKEN set, an anonymous wide job that needs heavy work is refused as on its route; an admin\'s runs', async () => {
    const route = json(await post(guarded, '/clauses', JSON.stringify(wide.clauses)))
    expect(route.refuse.code).toBe('unauthorized')
    const body = JSON.stringify({ batch: [{ op: 'captions' }, { op: 'clauses', input: wide.clauses }] })
    const anonymous = json(await post(guarded, '/run', body)).data
    expect(anonymous.results[0].ok).toBe(true)
    expect(anonymous.results[1].refuse).toMatchObject({ code: route.refuse.code, op: 'clauses' })
    const admin = json(await post(guarded, '/run', body, { authorization: `Bearer ${ADMIN_TOKEN}` })).data
    expect(admin.completed).toBe(2)
  })
})

describe('a /cli body padded past 64 KiB answers as on the loop', () => {
  const bodies: Record<string, unknown> = {
    'a light command': { line: 'captions' },
    'a heavy command, typed by its schema': { line: `sat --dimacs 'p cnf 2 2\n1 2 0\n-1 0\n' --want-model --max-conflicts 100` },
    'argv': { argv: ['quiz', '--dimacs', 'p cnf 2 1\n1 2 0\n', '--assignment', '[1,-2]'] },
    'a positional argument': { line: `sat 'p cnf 1 1\n1 0\n'` },
    'a whole input as --json': { line: `clauses --json '{"clauses": [[1, 2], [-1]], "max_listed": 3}'` },
    'an unknown operation (closest names)': { line: 'claues --x 1' },
    'a first word longer than any operation': { line: `${'x'.repeat(2_000)} --y 1` },
    'an unterminated quote': { line: `sat --dimacs 'p cnf` },
    'cli running cli': { line: 'cli --line captions' },
    'run through cli': { line: 'run --op captions' },
    'an empty argv word': { argv: [''] },
    'an @file value': { line: 'sat --dimacs @/etc/passwd' },
    '--json that is not JSON': { line: `clauses --json '{bad'` },
    'two positional arguments': { line: 'sat a b' },
    'a flag typed wrong': { line: 'clauses --max-listed lots --clauses [[1]]' },
    'an empty line': { line: '' },
    'both line and argv': { line: 'captions', argv: ['captions'] },
  }
  for (const [name, body] of Object.entries(bodies)) {
    it(name, async () => {
      const text = JSON.stringify(body)
      const [onLoop, inMill] = [await post(app, '/cli', text), await post(app, '/cli', padded(text))]
      expect(inMill.statusCode).toBe(onLoop.statusCode)
      expect(comparable(inMill.body)).toEqual(comparable(onLoop.body))
    })
  }

  it('a command whose input is too wide for the loop answers as its route, and echoes the command parsed', async () => {
    for (const [op, body] of [['clauses', { line: `clauses --json '${JSON.stringify(wide.clauses)}'` }], ['quiz', { argv: ['quiz', '--json', JSON.stringify(wide.quiz)] }]] as const) {
      const route = await post(app, `/${op}`, JSON.stringify(wide[op]))
      const ran = await post(app, '/cli', JSON.stringify(body))
      expect(ran.statusCode).toBe(200)
      const answer = json(ran).data
      expect(answer.parsed).toEqual({ op, input: wide[op] })
      expect(comparable(JSON.stringify(answer.results[0].data))).toEqual(comparable(JSON.stringify(json(route).data)))
    }
  })
})

describe('the mill hands back no more values than the loop may hold', () => {
  const itemsOf = (body: unknown): RunItems => {
    const bytes = new TextEncoder().encode(JSON.stringify(body))
    const result = runItemsFromBody({ blocks: [bytes], format: { kind: 'json', maxDepth: 10_000, maxValues: 1_000_000 }, mayWorkHeavy: true })
    if (!result.ok || !('value' in result)) throw new Error(`refused: ${JSON.stringify(result)}`)
    return result.value
  }
  const third = Array.from({ length: Math.floor(LOOP_BODY_MAX_VALUES / 3) }, (_, i) => i)

  it('jobs stay values in order while they fit; the first that does not, and only it, comes back as bytes', () => {
    const items = itemsOf({ batch: [{ op: 'a', input: third }, { op: 'b', input: [...third, ...third] }, { op: 'c', input: third }, { op: 'd' }] })
    if (!('batch' in items)) throw new Error('a batch')
    expect(items.batch.map((job) => (job.wide ? 'bytes' : 'value'))).toEqual(['value', 'bytes', 'value', 'value'])
    expect(JSON.parse(new TextDecoder().decode(items.batch[1]!.wide))).toEqual([...third, ...third])
    expect(items.batch[1]!.input).toBeUndefined()
    expect(items.stop_on_refusal).toBe(false)
  })

  it('what stays a value holds at most LOOP_BODY_MAX_VALUES values, the batch included', () => {
    const items = itemsOf({ batch: Array.from({ length: 8 }, (_, i) => ({ op: `o${i}`, input: third })) })
    if (!('batch' in items)) throw new Error('a batch')
    const values = { ...items, batch: items.batch.map(({ wide: _, ...job }) => job) }
    expect(valuesUpTo(values, LOOP_BODY_MAX_VALUES)).not.toBeNull()
    expect(items.batch.filter((job) => job.wide).length).toBe(6)
  })

  it('a single job too wide comes back as bytes', () => {
    const items = itemsOf({ op: 'x', input: [...third, ...third, ...third, 1, 2, 3] })
    expect('wide' in items && items.wide instanceof Uint8Array).toBe(true)
  })
})
