// Issue #13 items 3 (deep nesting) and 4 (non-finite numbers), over a real socket: one JSON parser rule for both surfaces.
import { describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { monitorHealth, postRaw } from './monitor.js'
import { LOOP_BODY_MAX_VALUES } from '../../src/json/loop-rule.js'

const host = listeningTestApp()

describe('numbers that overflow to ±Infinity', () => {
  it('are refused as invalid_input by /pin (it answered 500 before)', async () => {
    const res = await postRaw(host.base, '/api/v1/pin', '{"json":1e400}')
    expect(res.status).toBe(400)
    expect(res.body.refuse.code).toBe('invalid_input')
    expect(res.body.refuse.issues[0].path).toBe('(root).json')
  })

  it('are refused by /diff instead of "verified" with a patch to null', async () => {
    const res = await postRaw(host.base, '/api/v1/diff', '{"a":1e400,"b":-1e400,"mode":"json"}')
    expect(res.status).toBe(400)
    expect(res.body.refuse.code).toBe('invalid_input')
  })

  it('are refused on the trading surface as a problem, and in /cli --json values, by the same rule', async () => {
    const trading = await postRaw(host.base, '/api/v11/trading/backtest', '{"symbol":"BTCUSDT","params":{"fast":1E+308,"slow":2e308}}')
    expect(trading.status).toBe(400)
    expect(trading.body.title ?? trading.body.type).toBeTruthy()
    expect(JSON.stringify(trading.body)).toMatch(/Infinity/)
    const cli = await postRaw(host.base, '/api/v1/cli', JSON.stringify({ argv: ['pin', '--json', '{"json":-1e999}'] }))
    expect(cli.status).toBe(400)
    expect(cli.body.refuse.code).toBe('invalid_input')
    const digits = await postRaw(host.base, '/api/v1/pin', `{"json":${'9'.repeat(400)}}`)
    expect(digits.body.refuse.code).toBe('invalid_input')
  })

  it('leaves large finite numbers, tiny ones and exponents inside strings alone', async () => {
    const res = await postRaw(host.base, '/api/v1/diff', '{"a":1e300,"b":{"x":"1e400","y":1e-400},"mode":"json"}')
    expect(res.status).toBe(200)
    expect(res.body.data.verified).toBe(true)
  })
})

describe('deep nesting', () => {
  it('refuses a million-deep /jsonsat formula before parsing it, while health stays responsive', async () => {
    const depth = 1_000_000
    const body = `{"formula":${'{"not":'.repeat(depth)}{"var":"x"}${'}'.repeat(depth)}}`
    const monitor = monitorHealth(host.base)
    const results = []
    for (let i = 0; i < 5; i++) results.push(await postRaw(host.base, '/api/v1/jsonsat', body))
    const health = await monitor.stop()
    console.log(`1M-deep /jsonsat ×5: ${health.summary}`)
    for (const res of results) {
      expect(res.status).toBe(422)
      expect(res.body.refuse.code).toBe('over_limit')
      expect(res.body.refuse.reason).toMatch(/JSON_MAX_DEPTH/)
    }
    expect(health.failures).toBe(0)
  })

  it('answers a body nested within JSON_MAX_DEPTH that is parsed off the loop (it never answered: the value from the thread was too deep to arrive)', async () => {
    // 9,000 levels and 1.1 MB (a long comment-like string beside the formula), so the mill parses it.
    const formula = `${'{"not":'.repeat(9_000)}{"var":"x"}${'}'.repeat(9_000)}`
    const res = await postRaw(host.base, '/api/v1/jsonsat', `{"formula":${formula},"pad":"${'p'.repeat(1_100_000)}"}`)
    expect(res.status).toBe(400)
    expect(res.body.refuse.code).toBe('invalid_input')
    expect(JSON.stringify(res.body.refuse.issues)).toMatch(/pad/)
    const plain = await postRaw(host.base, '/api/v1/jsonsat', `{"formula":${formula}}`)
    expect(plain.status).toBe(200)
    expect(plain.body.data.status).toBe('SAT')
  })

  it('counts depth outside strings only', async () => {
    const res = await postRaw(host.base, '/api/v1/digest', JSON.stringify({ content: '{['.repeat(20_000) }))
    expect(res.status).toBe(200)
  })
})

describe('bulk JSON arrays', () => {
  it('13 MB of clause arrays to /clauses and /quiz are refused over_limit before parsing (0.5–0.6 s each on the loop before)', async () => {
    const clauses = Array.from({ length: 600_000 }, (_, i) => [i + 1, -(i + 2), i + 3])
    // Written before the monitor starts: this test's own 13 MB JSON.stringify runs on the host's loop (one process).
    const bodies = [JSON.stringify({ clauses }), JSON.stringify({ clauses, assignment: { 1: true } })]
    const monitor = monitorHealth(host.base)
    const answers = [
      await postRaw(host.base, '/api/v1/clauses', bodies[0]!),
      await postRaw(host.base, '/api/v1/quiz', bodies[1]!),
    ]
    const health = await monitor.stop()
    console.log(`13 MB clause arrays ×2: ${health.summary}`)
    for (const res of answers) {
      expect(res.status).toBe(422)
      expect(res.body.refuse.code).toBe('over_limit')
      expect(res.body.refuse.reason).toMatch(/JSON_MAX_VALUES/)
    }
    expect(health.failures).toBe(0)
  })

  it('trips on a body that comes back from the mill with more values than the loop may', async () => {
    const items = Array.from({ length: LOOP_BODY_MAX_VALUES }, (_, i) => 1 + (i % 50))
    const res = await postRaw(host.base, '/api/v1/pack', JSON.stringify({ items, capacity: 100 }))
    expect(res.status).toBe(500)
    // Within the loop's values, the same route answers (refused by its own schema: items are bounded there).
    const within = await postRaw(host.base, '/api/v1/pack', JSON.stringify({ items: items.slice(0, 30_000), capacity: 100 }))
    expect(within.status).not.toBe(500)
  })

  it('takes clause arrays within JSON_MAX_VALUES', async () => {
    const clauses = Array.from({ length: 35_000 }, (_, i) => [i + 1, -(i + 2), i + 3])
    const res = await postRaw(host.base, '/api/v1/clauses', JSON.stringify({ clauses }))
    expect(res.status).toBe(200)
    expect(res.body.data.clauses).toBe(35_000)
  })
})

describe('wide objects and declared sizes', () => {
  it('refuses an object of 60k keys over_limit before parsing (a member counts 4: 200k-key pins held the loop 110–130 ms a stretch)', async () => {
    const wide = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]))
    const monitor = monitorHealth(host.base)
    const answers = [
      await postRaw(host.base, '/api/v1/pin', JSON.stringify({ json: wide })),
      await postRaw(host.base, '/api/v1/diff', JSON.stringify({ a: wide, b: {}, mode: 'json' })),
    ]
    const health = await monitor.stop()
    console.log(`60k-key objects ×2: ${health.summary}`)
    for (const res of answers) {
      expect(res.status).toBe(422)
      expect(res.body.refuse.code).toBe('over_limit')
      expect(res.body.refuse.reason).toMatch(/an object member counts 4/)
    }
    expect(health.failures).toBe(0)
    const within = await postRaw(host.base, '/api/v1/pin', JSON.stringify({ json: Object.fromEntries(Object.entries(wide).slice(0, 30_000)) }))
    expect(within.status).toBe(200)
  })

  it('refuses a 40-byte DIMACS header declaring 2M variables (its model made a 17 MB answer) and answers one of 100k', async () => {
    const monitor = monitorHealth(host.base)
    const over = await postRaw(host.base, '/api/v1/sat', JSON.stringify({ dimacs: 'p cnf 2000000 1\n1 0\n' }))
    const most = await postRaw(host.base, '/api/v1/sat', JSON.stringify({ dimacs: 'p cnf 100000 1\n1 0\n' }))
    const health = await monitor.stop()
    console.log(`declared variables: ${health.summary}`)
    expect(over.status).toBe(422)
    expect(over.body.refuse.hints).toEqual({ limit: 'maxVars', value: 100_000 })
    expect(most.status).toBe(200)
    expect(most.body.data.model).toHaveLength(100_000)
    expect(health.failures).toBe(0)
  })
})
