// The body reader gives the same answer for a body parsed on the loop and in the mill.
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { createBodyReader, type ParseOffLoop } from './reader.js'
import { isBodyBytes, type BodyFormat } from './formats.js'
import { createMill } from '../mill/pool.js'
import { millBodyParser } from '../plugins/json-body.js'
import { LOOP_BODY_MAX_VALUES } from '../json/loop-rule.js'

const mill = createMill({ threads: 1, maxQueue: 8 })
afterAll(async () => mill.close())
/** The mill's parser, counting the bodies it was given. */
let parsedInMill = 0
const inMill: ParseOffLoop = (blocks, format, owner) => {
  parsedInMill++
  return millBodyParser(mill)(blocks, format, owner)
}
const onLoop = createBodyReader({ parseOffLoop: inMill, offLoopBytes: Number.POSITIVE_INFINITY })
const offLoop = createBodyReader({ parseOffLoop: inMill, offLoopBytes: 0 })

const json: BodyFormat = { kind: 'json', maxDepth: 5, maxValues: 20 }

/**
 * What a reader makes of `text` sent in 7-byte chunks: the value, or the error's code and message. A body kept as
 * bytes shows as `{ bytes }`, their text (its blocks may be cut anywhere).
 */
async function outcome(reader: ReturnType<typeof createBodyReader>, text: string, format = json, limit = 1 << 20, declared?: number) {
  const bytes = Buffer.from(text)
  const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7))
  try {
    const value = await reader.read(Readable.from(chunks), { contentLength: declared ?? bytes.length, limit, format, owner: null, route: '/test' })
    return { value: isBodyBytes(value) ? { bytes: Buffer.concat(value).toString() } : value }
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
  ['a CSV kept as bytes', 'Date,Open\n1,2\n3,4\n', { kind: 'bytes' }],
  ['an empty body kept as bytes', '', { kind: 'bytes' }],
  ['bytes over the limit', 'Date,Open\n1,2\n3,4\n', { kind: 'bytes' }, 10],
]

describe('body reader', () => {
  it.each(cases)('%s: the same outcome on the loop and in the mill', async (_name, text, format, limit, declared) => {
    const here = await outcome(onLoop, text, format, limit, declared)
    const there = await outcome(offLoop, text, format, limit, declared)
    expect(there).toEqual(here)
    expect(here).toMatchSnapshot()
  })

  it('parses a large body in the mill, its blocks moved there, and a small one here', async () => {
    const reader = createBodyReader({ parseOffLoop: inMill, offLoopBytes: 10 })
    const before = parsedInMill
    expect((await outcome(reader, '{"a":1}')).value).toEqual({ a: 1 })
    expect(parsedInMill).toBe(before)
    // Over three 1 MiB blocks, the last one short: every block arrives in order.
    const text = 'é😀y'.repeat(500_000)
    const big = await outcome(reader, JSON.stringify({ big: text }), json, 1 << 23)
    expect(big.error).toBeUndefined()
    expect((big.value as { big: string }).big).toBe(text)
    expect(parsedInMill).toBe(before + 1)
  })

  it('keeps a body read as bytes as they arrived, never decoded nor sent to the mill: a large one in whole 1 MiB blocks', async () => {
    const reader = createBodyReader({ parseOffLoop: inMill, offLoopBytes: 10 })
    const before = parsedInMill
    const read = (text: string) => reader.read(Readable.from([Buffer.from(text)]), {
      contentLength: Buffer.byteLength(text), limit: 1 << 23, format: { kind: 'bytes' }, owner: null, route: '/test',
    }) as Promise<Uint8Array[]>
    const small = await read('Date,Open\n1,2\n')
    expect(isBodyBytes(small) && Buffer.concat(small).toString()).toBe('Date,Open\n1,2\n')
    // A character cut between blocks stays cut: the bytes are the body's, for the mill task that decodes them.
    const text = 'Date,é😀\n'.repeat(300_000)
    const blocks = await read(text)
    expect(blocks.map((b) => b.byteLength)).toEqual([2 ** 20, 2 ** 20, 2 ** 20, Buffer.byteLength(text) - 3 * 2 ** 20])
    expect(blocks.slice(0, 3).every((b) => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength)).toBe(true)
    expect(Buffer.concat(blocks).toString()).toBe(text)
    expect((await read('')).map((b) => b.byteLength)).toEqual([0])
    // Of unknown length (read into blocks) and empty: still one block, as every body kept as bytes has.
    const unknown = await reader.read(Readable.from([]), { contentLength: NaN, limit: 100, format: { kind: 'bytes' }, owner: null, route: '/test' })
    expect((unknown as Uint8Array[]).map((b) => b.byteLength)).toEqual([0])
    expect(parsedInMill).toBe(before)
  })

  it('refuses a large body occupied when the mill cannot take it, before parsing it', async () => {
    const closed = createMill({ threads: 1, maxQueue: 1 })
    await closed.close()
    const reader = createBodyReader({ parseOffLoop: millBodyParser(closed), offLoopBytes: 0 })
    expect(await outcome(reader, '{"a":1}')).toMatchObject({ error: 'occupied' })
  })
})

describe('a deeply nested body', () => {
  it('comes back from the mill whole (a structured clone 4,000 levels deep never arrives)', async () => {
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
  it('is dropped when its stream closes early, never sent to the mill, and the next body is answered', async () => {
    const reader = createBodyReader({ parseOffLoop: inMill, offLoopBytes: 0 })
    const before = parsedInMill
    const stream = new Readable({ read() {} })
    const reading = reader.read(stream, { contentLength: 1000, limit: 1 << 20, format: json, owner: null, route: '/test' })
    stream.push(Buffer.from('{"a":'))
    stream.destroy()
    await expect(reading).rejects.toMatchObject({ statusCode: 400 })
    expect(parsedInMill).toBe(before)
    expect((await outcome(reader, '{"b":2}')).value).toEqual({ b: 2 })
  })
})

describe('the tripwire on values back from the mill', () => {
  const format: BodyFormat = { kind: 'json', maxDepth: 5_000, maxValues: 200_000 }
  const tripped: string[] = []
  const reader = createBodyReader({ parseOffLoop: inMill, offLoopBytes: 0, overLoop: (route) => void tripped.push(route) })
  const read = (body: unknown, text = JSON.stringify(body)) =>
    reader.read(Readable.from([Buffer.from(text)]), { contentLength: Buffer.byteLength(text), limit: 1 << 24, format, owner: null, route: '/wide' })

  it('is told when what comes back holds more values than a body parsed on the loop may, and names the route', async () => {
    const many = Array.from({ length: LOOP_BODY_MAX_VALUES }, (_, i) => i) // with the array itself, one over
    await read({ many: many.slice(2) }) // the object, the array and their items: at the limit
    expect(tripped).toEqual([])
    await read(many)
    expect(tripped).toEqual(['/wide'])
    // Too deep to cross as a value: parsed on the loop from its text, so counted the same.
    await read(undefined, `${'['.repeat(600)}${JSON.stringify(many)}${']'.repeat(600)}`)
    expect(tripped).toEqual(['/wide', '/wide'])
  })

  it('is not told of long strings', async () => {
    tripped.length = 0
    await read({ text: 'x'.repeat(5_000_000) })
    expect(tripped).toEqual([])
  })
})
