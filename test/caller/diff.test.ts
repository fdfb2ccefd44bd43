import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { applyUnified } from '../../src/engines/diff/apply-unified.js'
import { applyJsonPatch } from '../../src/engines/diff/json-patch.js'
import { DIFF_LIMITS } from '../../src/caller/ops/text/diff.js'

let app: FastifyInstance
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(async () => app.close())

const post = async (payload: unknown) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/diff', payload: payload as object })
  return { status: res.statusCode, body: json(res) }
}
const refused = async (payload: unknown, code = 'invalid_input') => {
  const { status, body } = await post(payload)
  expect(body.ok, JSON.stringify(body.data)).toBe(false)
  expect(body.refuse.code).toBe(code)
  expect(status).toBe(body.refuse.http_status)
  return body.refuse as { reason: string; issues?: Array<{ path: string; message: string }> }
}

describe('POST /diff', () => {
  it('diffs lines (the default) into hunks, counts and a unified diff that applies', async () => {
    const a = 'one\ntwo\nthree\n'
    const b = 'one\n2\nthree\nfour'
    const { status, body } = await post({ a, b })
    expect(status).toBe(200)
    expect(body.data).toMatchObject({ mode: 'lines', unit: 'line', added: 2, removed: 1, minimal: true, verified: true })
    expect(body.data.unified).toBe(
      '--- a\n+++ b\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n\\ No newline at end of file\n',
    )
    expect(applyUnified(a, body.data.unified)).toBe(b)
    expect(body.data.hunks).toHaveLength(1)
    expect(body.data.patch).toBeUndefined()
  })

  it('honours context', async () => {
    const a = Array.from({ length: 20 }, (_, i) => `${i}\n`).join('')
    const b = a.replace('10\n', 'ten\n')
    const { body } = await post({ a, b, context: 0 })
    expect(body.data.hunks[0].header).toBe('@@ -11 +11 @@')
  })

  it('diffs words and chars in their units', async () => {
    const words = await post({ a: 'the quick brown fox', b: 'the slow brown fox', mode: 'words' })
    expect(words.body.data).toMatchObject({ unit: 'token', added: 1, removed: 1, verified: true })
    const chars = await post({ a: 'kitten', b: 'sitting', mode: 'chars' })
    expect(chars.body.data).toMatchObject({ unit: 'char', added: 3, removed: 2, verified: true })
  })

  it('diffs JSON values into an RFC 6902 patch that turns a into b', async () => {
    const a = { name: 'ncm', tags: ['a', 'b'], 'm~n': { 'x/y': 1 } }
    const b = { name: 'ncm', tags: ['a', 'c', 'd'], 'm~n': { 'x/y': 2 } }
    const { body } = await post({ a, b, mode: 'json' })
    expect(body.data.patch).toContainEqual({ op: 'replace', path: '/m~0n/x~1y', value: 2 })
    expect(applyJsonPatch(a, body.data.patch)).toEqual(b)
    expect(body.data.verified).toBe(true)
  })

  it('applies a given patch in json mode and returns the result', async () => {
    const { body } = await post({
      a: { list: [1, 2, 3] },
      patch: [{ op: 'remove', path: '/list/0' }, { op: 'add', path: '/list/-', value: 4 }, { op: 'test', path: '/list/0', value: 2 }],
      mode: 'json',
    })
    expect(body.data.result).toEqual({ list: [2, 3, 4] })
    expect(body.data.patch).toEqual([
      { op: 'remove', path: '/list/0' },
      { op: 'add', path: '/list/2', value: 4 },
    ])
  })

  it('diffs large inputs in the mill, with the same answer as inline', async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 7)}\n`)
    const a = lines.join('')
    const b = lines.map((l, i) => (i % 997 === 0 ? `changed ${i}\n` : l)).join('')
    expect(a.length).toBeGreaterThan(DIFF_LIMITS.inline)
    const before = app.mill.stats().completed
    const { status, body } = await post({ a, b })
    expect(status).toBe(200)
    // One task: the body (over 64 KiB) read, checked and diffed in the mill.
    expect(app.mill.stats().completed).toBe(before + 1)
    expect(body.data).toMatchObject({ added: 41, removed: 41, verified: true, minimal: true })
    expect(applyUnified(a, body.data.unified)).toBe(b)
    // 2,000 lines are light work, but their answer's bound (diffAnswerBytes) is over what the loop writes: one short task.
    const small = await post({ a: lines.slice(0, 2000).join(''), b: b.split('\n').slice(0, 2000).join('\n') + '\n' })
    expect(small.body.data.added).toBe(3)
    expect(app.mill.stats().completed).toBe(before + 2)
    // A few lines are answered on the loop.
    expect((await post({ a: lines.slice(0, 20).join(''), b: b.split('\n').slice(0, 20).join('\n') + '\n' })).body.data.added).toBe(1)
    expect(app.mill.stats().completed).toBe(before + 2)
  })

  it('reports a bad patch the same way from the mill', async () => {
    const a = { big: 'y'.repeat(DIFF_LIMITS.inline + 1), list: [] }
    const refuse = await refused({ a, patch: [{ op: 'remove', path: '/list/0' }], mode: 'json' })
    expect(refuse.issues).toEqual([{ path: 'patch[0]', message: expect.stringMatching(/no element "0"/) }])
  })

  it('refuses large diffs with occupied while the host sheds load, and still answers small ones', async () => {
    app.admission.override('shedding')
    try {
      await refused({ a: 'z'.repeat(DIFF_LIMITS.inline + 1), b: '' }, 'occupied')
      expect((await post({ a: 'a\n', b: 'b\n' })).body.ok).toBe(true)
    } finally {
      app.admission.override(null)
    }
  })

  describe('refuses', () => {
    it('non-strings in text modes, and missing sides', async () => {
      expect((await refused({ a: 1, b: 'x' })).issues![0]).toMatchObject({ path: 'a' })
      expect((await refused({ a: 'x', b: ['x'], mode: 'words' })).issues![0]!.message).toMatch(/array/)
      await refused({ a: 'x' })
      await refused({ b: 'x' })
      await refused({})
    })

    it('bad modes, contexts and unknown fields', async () => {
      await refused({ a: 'x', b: 'y', mode: 'bytes' })
      await refused({ a: 'x', b: 'y', context: -1 })
      await refused({ a: 'x', b: 'y', context: 1.5 })
      await refused({ a: 'x', b: 'y', ignore_case: true })
      await refused({ a: 'x', b: 'y', patch: [] })
    })

    it('json mode with neither or both of b and patch', async () => {
      await refused({ a: 1, mode: 'json' })
      await refused({ a: 1, b: 2, patch: [], mode: 'json' })
    })

    it('invalid JSON Pointers in a patch', async () => {
      for (const path of ['list', '/a~2', '/x~']) {
        const refuse = await refused({ a: { list: [] }, patch: [{ op: 'remove', path }], mode: 'json' })
        expect(refuse.issues!.some((i) => /JSON Pointer/.test(i.message))).toBe(true)
      }
      const from = await refused({ a: {}, patch: [{ op: 'move', from: 'a', path: '/b' }], mode: 'json' })
      expect(from.issues!.some((i) => i.path.includes('from'))).toBe(true)
    })

    it('patch operations that do not fit a, naming the operation', async () => {
      const missing = await refused({ a: { x: 1 }, patch: [{ op: 'test', path: '/x', value: 1 }, { op: 'remove', path: '/y' }], mode: 'json' })
      expect(missing.issues).toEqual([{ path: 'patch[1]', message: expect.stringMatching(/no member "y"/) }])
      await refused({ a: { x: 1 }, patch: [{ op: 'test', path: '/x', value: 2 }], mode: 'json' })
      await refused({ a: [1], patch: [{ op: 'add', path: '/5', value: 2 }], mode: 'json' })
      await refused({ a: [1], patch: [{ op: 'add', path: '/0' }], mode: 'json' })
      await refused({ a: [1], patch: [{ op: 'frobnicate', path: '/0' }], mode: 'json' })
    })

    it('JSON nested past the depth limit', async () => {
      let deep: unknown = 1
      for (let i = 0; i < DIFF_LIMITS.jsonDepth + 1; i++) deep = [deep]
      const refuse = await refused({ a: deep, b: 1, mode: 'json' }, 'over_limit')
      expect(refuse.reason).toMatch(String(DIFF_LIMITS.jsonDepth))
    })

    it('more lines than the limit', async () => {
      const refuse = await refused({ a: '\n'.repeat(DIFF_LIMITS.tokensPerSide + 1), b: '' }, 'over_limit')
      expect(refuse.reason).toMatch(/limit is 1000000 per side/)
      const chars = await refused({ a: 'é'.repeat(DIFF_LIMITS.tokensPerSide + 1), b: '', mode: 'chars' }, 'over_limit')
      expect(chars.reason).toMatch(/a has 1000001 chars/)
    })

    it('a body over the 16 MiB limit', async () => {
      await refused({ a: 'x'.repeat(17 * 1024 * 1024), b: '' }, 'payload_too_large')
    })
  })
})
