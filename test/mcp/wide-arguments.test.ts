// /mcp reads a message over 64 KiB in the mill (issue #30 item 1, task mcp.message): the same message padded past
// 64 KiB answers as on the loop, and a tools/call whose arguments the loop may not hold (too many values, or nested
// past what crosses by structured clone) has them handed to the tool as bytes, answered as the tool's route answers
// the same input. What remains of a message may hold no more values than a body parsed on the loop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.js'
import { padded, comparable } from '../off-loop.js'
import { LOOP_BODY_MAX_VALUES, valuesUpTo } from '../../src/json/loop-rule.js'
import { mcpMessageFromBody } from '../../src/mill/tasks/mcp-message.js'

let app: FastifyInstance
let lenient: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp({ env: { LOOP_TRIPWIRE: 'throw' } })
  lenient = await buildTestApp({ env: { LOOP_TRIPWIRE: 'off' } })
})
afterAll(async () => Promise.all([app.close(), lenient.close()]))

const mcp = (host: FastifyInstance, text: string) => host.inject({
  method: 'POST', url: '/mcp?toolsets=all', payload: text,
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
})
const route = (host: FastifyInstance, path: string, input: unknown) =>
  host.inject({ method: 'POST', url: `/api/v1${path}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(input) })
const call = (name: string, args: unknown, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })


/** A tool's data: its structuredContent, the answer's data inline. */
function toolData(body: string): unknown {
  const { result } = JSON.parse(body) as { result: { isError?: boolean; structuredContent: unknown } }
  expect(result.isError ?? false).toBe(false)
  return comparable(JSON.stringify(result.structuredContent))
}

const chainClauses = (n: number) => Array.from({ length: n }, (_, i) => [i + 1, -(i + 2), i + 3])
const wide = {
  clauses: { clauses: chainClauses(9_000), max_listed: 5 },
  diff: { a: Array.from({ length: 20_000 }, (_, i) => i), b: Array.from({ length: 20_000 }, (_, i) => (i % 1000 === 0 ? -i : i)), mode: 'json' },
  sat: { dimacs: 'p cnf 40000 2\n1 2 0\n-1 -2 0\n', assumptions: Array.from({ length: 35_000 }, (_, i) => i + 3), want_model: false },
  jsonsat: { formula: { and: Array.from({ length: 17_000 }, (_, i) => ({ var: `v${i}` })) }, want_model: false },
}

describe('an /mcp message padded past 64 KiB answers as on the loop', () => {
  const messages: Record<string, string> = {
    'a light tool': JSON.stringify(call('captions', {})),
    'a heavy tool': JSON.stringify(call('sat', { dimacs: 'p cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n' })),
    'a tool refused by its schema': JSON.stringify(call('sat', { dimacs: 7 })),
    'an unknown tool': JSON.stringify(call('nope', {})),
    'tools/list': JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    'a resource read': JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'ncm://lexicon' } }),
    'a batch of two calls': JSON.stringify([call('captions', {}, 1), call('surface', {}, 2)]),
    'an unknown method': JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'nope/nope' }),
    'JSON cut short': '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {',
    'a __proto__ member': '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "captions", "arguments": {"__proto__": {}}}}',
  }
  for (const [name, text] of Object.entries(messages)) {
    it(name, async () => {
      const [onLoop, inMill] = [await mcp(app, text), await mcp(app, padded(text))]
      expect(inMill.statusCode).toBe(onLoop.statusCode)
      expect(comparable(inMill.body)).toEqual(comparable(onLoop.body))
    })
  }
})

describe('a tools/call too wide for the loop is read as its route reads the same input', () => {
  for (const name of ['clauses', 'diff', 'sat', 'jsonsat'] as const) {
    it(`${name}: over the loop's values, and the data of POST /${name}`, async () => {
      expect(valuesUpTo(wide[name], LOOP_BODY_MAX_VALUES)).toBeNull()
      const direct = await route(app, `/${name}`, wide[name])
      expect(direct.statusCode).toBe(200)
      const res = await mcp(app, JSON.stringify(call(name, wide[name])))
      expect(res.statusCode).toBe(200)
      expect(toolData(res.body)).toEqual(comparable(JSON.stringify(JSON.parse(direct.body).data)))
    })
  }

  it('arguments nested past what crosses by structured clone, with few values', async () => {
    const formula = { and: [JSON.parse(`${'{"not":'.repeat(1_500)}{"var":"x"}${'}'.repeat(1_500)}`), { var: 'y' }] }
    const direct = await route(app, '/jsonsat', { formula })
    const res = await mcp(app, JSON.stringify(call('jsonsat', { formula })))
    expect(toolData(res.body)).toEqual(comparable(JSON.stringify(JSON.parse(direct.body).data)))
  })

  it('refused by its schema as its route refuses', async () => {
    const res = await mcp(app, JSON.stringify(call('clauses', { ...wide.clauses, extra: 1 })))
    const { result } = JSON.parse(res.body) as { result: { isError: boolean; structuredContent: { refuse: { code: string } } } }
    expect(result.isError).toBe(true)
    expect(result.structuredContent.refuse.code).toBe(JSON.parse((await route(app, '/clauses', { ...wide.clauses, extra: 1 })).body).refuse.code)
  })

  it('a tool that reads no bytes gets the value its route gets: the same refusal, and under the tripwire the same trip', async () => {
    // /pack takes at most 5,000 items: its route refuses this over_limit after its body came back as a value.
    const pack = { items: Array.from({ length: 12_000 }, (_, i) => ({ id: `i${i}`, size: (i % 7) + 1 })), capacity: 50 }
    const direct = JSON.parse((await route(lenient, '/pack', pack)).body) as { refuse: { code: string; reason: string } }
    const { result } = JSON.parse((await mcp(lenient, JSON.stringify(call('pack', pack)))).body) as { result: { isError: boolean; structuredContent: { refuse: unknown } } }
    expect(result.isError).toBe(true)
    expect(result.structuredContent.refuse).toMatchObject({ code: direct.refuse.code, reason: direct.refuse.reason })
    expect((await route(app, '/pack', pack)).statusCode).toBe(500)
    const tripped = JSON.parse((await mcp(app, JSON.stringify(call('pack', pack)))).body) as { result?: { isError?: boolean }; error?: unknown }
    expect(tripped.result?.isError === true || tripped.error !== undefined).toBe(true)
  })

  it('a batch too wide for the loop is refused over_limit: large calls go one at a time', async () => {
    const res = await mcp(app, JSON.stringify([call('clauses', wide.clauses, 1), call('clauses', wide.clauses, 2)]))
    expect(res.statusCode).toBe(422)
    expect(res.body).toContain('one at a time')
  })
})

describe('task mcp.message', () => {
  const read = (message: unknown) => mcpMessageFromBody({
    blocks: [new TextEncoder().encode(JSON.stringify(message))], format: { kind: 'json', maxDepth: 10_000, maxValues: 1_000_000 },
  })

  it('takes a wide tools/call\'s arguments out as their bytes and leaves the rest a value', () => {
    const { outcome, toolArguments } = read(call('clauses', wide.clauses))
    expect(outcome).toMatchObject({ ok: true, value: call('clauses', {}) })
    expect(JSON.parse(new TextDecoder().decode(toolArguments))).toEqual(wide.clauses)
  })

  it('leaves small arguments, and any other method, as they are', () => {
    const small = read(call('captions', { a: 1 }))
    expect(small.toolArguments).toBeUndefined()
    expect(small.outcome).toMatchObject({ ok: true, value: call('captions', { a: 1 }) })
    const { outcome } = read({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'x', junk: Array(LOOP_BODY_MAX_VALUES).fill(0) } })
    expect(outcome).toMatchObject({ ok: false, refusal: { code: 'over_limit' } })
  })
})
