// The body reader gives the same answer for a body parsed on the loop and in the body thread.
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { createBodyReader } from './reader.js'
import type { BodyFormat } from './formats.js'
import { JsonText } from './text-members.js'

const onLoop = createBodyReader({ offLoopBytes: Number.POSITIVE_INFINITY })
const offLoop = createBodyReader({ offLoopBytes: 0 })
afterAll(async () => Promise.all([onLoop.close(), offLoop.close()]))

const json: BodyFormat = { kind: 'json', maxDepth: 5, maxValues: 20 }

/** What a reader makes of `text` sent in 7-byte chunks: the value, or the error's code and message. */
async function outcome(reader: ReturnType<typeof createBodyReader>, text: string, format = json, limit = 1 << 20, declared?: number) {
  const bytes = Buffer.from(text)
  const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7))
  try {
    return { value: await reader.read(Readable.from(chunks), declared ?? bytes.length, limit, format) }
  } catch (err) {
    const e = err as Error & { code?: string }
    return { error: e.code, message: e.message }
  }
}

const cases: Array<[string, string, BodyFormat?, number?, number?]> = [
  ['an object with text beyond ASCII', JSON.stringify({ a: 'é😀'.repeat(100), b: [1, 2, { c: null }] })],
  ['a BOM before the value', '\uFEFF{"a":1}'],
  ['an empty body', ''],
  ['text that is not JSON', '{"a":'],
  ['a __proto__ key', '{"__proto__":{"x":1}}'],
  ['a constructor key (left alone, as Fastify is configured)', '{"constructor":{"prototype":1}}'],
  ['nesting deeper than maxDepth', '[[[[[[1]]]]]]'],
  ['more values than maxValues', JSON.stringify(Array.from({ length: 30 }, (_, i) => i))],
  ['a number that overflows', '{"n":1e400}'],
  ['a body over the limit', JSON.stringify({ a: 'x'.repeat(100) }), json, 50],
  ['a body shorter than its content-length', '{"a":1}', json, 1 << 20, 99],
  ['a CSV as its text', 'Date,Open\n1,2\n3,4\n', { kind: 'csv' }],
]

describe('body reader', () => {
  it.each(cases)('%s: the same outcome on the loop and in the thread', async (_name, text, format, limit, declared) => {
    const here = await outcome(onLoop, text, format, limit, declared)
    const there = await outcome(offLoop, text, format, limit, declared)
    expect(there).toEqual(here)
    expect(here).toMatchSnapshot()
  })

  it('counts the bodies it sent to the thread, and starts the thread again after it was closed', async () => {
    const reader = createBodyReader({ offLoopBytes: 10 })
    await outcome(reader, '{"a":1}')
    expect(reader.offLoop()).toBe(0)
    expect(reader.memory()).toEqual({ threads: 0, heap_bytes: 0 })
    const big = await outcome(reader, JSON.stringify({ big: 'y'.repeat(3_000_000) }), json, 1 << 23)
    expect(big.error).toBeUndefined()
    expect((big.value as { big: string }).big.length).toBe(3_000_000)
    expect(reader.offLoop()).toBe(1)
    // The thread reports its heap with each answer (the memory budget's body_thread row).
    expect(reader.memory().threads).toBe(1)
    expect(reader.memory().heap_bytes).toBeGreaterThan(1_000_000)
    await reader.close()
    expect(reader.memory()).toEqual({ threads: 0, heap_bytes: 0 })
    expect((await outcome(reader, '{"again":"over ten bytes"}')).value).toEqual({ again: 'over ten bytes' })
    await reader.close()
  })
})

describe('a deeply nested body', () => {
  it('comes back from the thread whole (a structured clone 4,000 levels deep never arrives)', async () => {
    const deep = (n: number) => `${'{"k":['.repeat(n)}"leaf"${']}'.repeat(n)}`
    const format: BodyFormat = { kind: 'json', maxDepth: 10_000, maxValues: 100_000 }
    // Walked without recursion: vitest's deep equality overflows the stack at these depths too.
    const levelsOf = (value: unknown): { levels: number; leaf: unknown } => {
      let levels = 0
      while (typeof value === 'object' && value !== null) {
        value = (value as { k: unknown[] }).k[0]
        levels++
      }
      return { levels, leaf: value }
    }
    for (const levels of [100, 2_000]) {
      const there = await outcome(offLoop, deep(levels), format)
      expect(there.error).toBeUndefined()
      expect(levelsOf(there.value)).toEqual({ levels, leaf: 'leaf' })
    }
  })
})

describe('a body that never ends', () => {
  it('is dropped when its stream closes early, and the thread answers the next body', async () => {
    const reader = createBodyReader({ offLoopBytes: 0 })
    const stream = new Readable({ read() {} })
    const reading = reader.read(stream, 1000, 1 << 20, json)
    stream.push(Buffer.from('{"a":'))
    stream.destroy()
    await expect(reading).rejects.toMatchObject({ statusCode: 400 })
    expect((await outcome(reader, '{"b":2}')).value).toEqual({ b: 2 })
    await reader.close()
  })
})

describe('members a route takes as text', () => {
  const format: BodyFormat = { kind: 'json', maxDepth: 100, maxValues: 200_000, textMembers: ['json', 'formula', 'absent'] }
  const wide = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}`, [i, 'é😀']]))

  it('cross back from the thread as their JSON text when wide; small ones, strings and unnamed members as values', async () => {
    const body = { json: wide, formula: { var: 'x' }, label: 'l', other: wide }
    const there = (await outcome(offLoop, JSON.stringify(body), format)).value as Record<string, unknown>
    expect(there.json).toBeInstanceOf(JsonText)
    expect((there.json as JsonText).text).toBe(JSON.stringify(wide))
    expect(there.formula).toEqual({ var: 'x' })
    expect(there.other).toEqual(wide)
    expect(there.label).toBe('l')
    expect('absent' in there).toBe(false)
    const text = (await outcome(offLoop, JSON.stringify({ json: 'a string is cloned cheaply'.repeat(1_000) }), format)).value
    expect(text).toEqual({ json: 'a string is cloned cheaply'.repeat(1_000) })
  })

  it('are values on the loop (small bodies), and a body too deep to clone still comes back whole', async () => {
    expect((await outcome(onLoop, JSON.stringify({ json: wide }), format)).value).toEqual({ json: wide })
    const deep = `{"json":${'['.repeat(600)}${JSON.stringify(wide)}${']'.repeat(600)}}`
    const value = (await outcome(offLoop, deep, { ...format, maxDepth: 1_000 })).value as { json: unknown }
    expect(Array.isArray(value.json)).toBe(true)
  })
})
