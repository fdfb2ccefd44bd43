import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json, manualClock } from '../helper.js'
import { PIN_LIMITS } from '../../src/caller/ops/access/pin.js'

const ADMIN = 'test-admin-token-0123456789'
let open: FastifyInstance
let secured: FastifyInstance
const clock = manualClock()
beforeAll(async () => {
  ;[open, secured] = await Promise.all([buildTestApp({ clock }), buildTestApp({ env: { ADMIN_TOKEN: ADMIN } })])
})
afterAll(async () => Promise.all([open.close(), secured.close()]))

const call = async (payload: unknown, { app = open, token }: { app?: FastifyInstance; token?: string } = {}) => {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/pin',
    payload: payload as object,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  })
  return { status: res.statusCode, body: json(res), raw: res.body }
}
const refusal = async (payload: unknown, code: string, options: { app?: FastifyInstance; token?: string } = {}) => {
  const { status, body } = await call(payload, options)
  expect(body.ok, JSON.stringify(body.data)).toBe(false)
  expect(body.refuse.code).toBe(code)
  expect(status).toBe(body.refuse.http_status)
  return body.refuse as { reason: string; hints?: Record<string, unknown>; issues?: Array<{ path: string; message: string }> }
}
const sha256 = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex')
const pinCount = async (app = open) => Number((await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pins'))!.n)

describe('POST /pin', () => {
  it('pins text under the SHA-256 of its UTF-8 bytes, and reads it back verified', async () => {
    const text = 'héllo, pins\n'
    const pinned = await call({ content: text, label: 'first' })
    expect(pinned.status).toBe(200)
    expect(pinned.body.data).toEqual({
      action: 'pinned',
      digest: sha256(text),
      size: Buffer.byteLength(text),
      media_type: 'text/plain',
      label: 'first',
      created_at: new Date(clock.now()).toISOString(),
      created: true,
      canonicalization: null,
    })
    const read = await call({ digest: sha256(text) })
    expect(read.body.data).toMatchObject({ action: 'read', digest: sha256(text), content: text, verified: true, label: 'first' })
    expect(read.body.data.json).toBeUndefined()
  })

  it('is idempotent: the same content keeps its digest, first time and label', async () => {
    const first = (await call({ content: 'idempotent', label: 'one' })).body.data
    clock.advance(60_000)
    const again = (await call({ content: 'idempotent', label: 'two' })).body.data
    expect(again).toMatchObject({ digest: first.digest, created: false, created_at: first.created_at, label: 'one' })
    expect(await open.store.sql.get('SELECT count(*) AS n FROM pins WHERE digest = ?', [first.digest])).toEqual({ n: 1 })
  })

  it('pins JSON in its RFC 8785 canonical form, so key order does not matter', async () => {
    const a = (await call({ json: { b: [1, 2.5, 'x'], a: { d: null, c: true } } })).body.data
    const b = (await call({ json: { a: { c: true, d: null }, b: [1, 2.5, 'x'] } })).body.data
    const canonical = '{"a":{"c":true,"d":null},"b":[1,2.5,"x"]}'
    expect(a.digest).toBe(sha256(canonical))
    expect(b).toMatchObject({ digest: a.digest, created: false, media_type: 'application/json' })
    expect(a.canonicalization).toMatch(/RFC 8785/)
    const read = (await call({ digest: a.digest })).body.data
    expect(read.content).toBe(canonical)
    expect(read.json).toEqual({ a: { c: true, d: null }, b: [1, 2.5, 'x'] })
    const scalar = (await call({ json: null })).body.data
    expect(scalar.digest).toBe(sha256('null'))
  })

  it('pins a large JSON value (made canonical in the mill) and a text of many parts, and reads both back verified', async () => {
    const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${4_999 - i}`, [i, `é${i}`]]))
    const canonical = JSON.stringify(Object.fromEntries(Object.keys(wide).sort().map((k) => [k, wide[k]])))
    const pinned = (await call({ json: wide })).body.data
    expect(pinned).toMatchObject({ digest: sha256(canonical), size: Buffer.byteLength(canonical), created: true })
    expect((await call({ digest: pinned.digest })).body.data).toMatchObject({ content: canonical, json: wide, verified: true })

    const text = 'ab😀é\n'.repeat(100_000) // 600k UTF-16 units: parts of 256 Ki characters, cut between characters
    const long = (await call({ content: text })).body.data
    expect(long).toMatchObject({ digest: sha256(text), size: Buffer.byteLength(text), created: true })
    const read = await call({ digest: long.digest })
    expect(read.body.data.content === text).toBe(true)
    expect(Number((await open.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pin_parts WHERE digest = ?', [long.digest]))!.n)).toBe(3)
  })

  it('accepts an upper-case digest and answers not_found for an unknown one', async () => {
    const { digest } = (await call({ content: 'case' })).body.data
    expect((await call({ digest: digest.toUpperCase().replace('SHA256', 'sha256') })).body.data.content).toBe('case')
    await refusal({ digest: sha256('never pinned') }, 'not_found')
  })

  it('withholds bytes that no longer match their digest (tampered in the database)', async () => {
    const { digest } = (await call({ content: 'original bytes' })).body.data
    await open.store.sql.run('UPDATE pin_parts SET content = ? WHERE digest = ?', [Buffer.from('tampered bytes'), digest])
    const read = await call({ digest })
    const refuse = await refusal({ digest }, 'conflict')
    expect(refuse.reason).toMatch(/corrupt/)
    expect(refuse.hints).toMatchObject({ digest, actual_digest: sha256('tampered bytes'), verified: false })
    expect(read.raw).not.toContain('tampered bytes')
    expect(read.body.data).toBeNull()
  })

  it('withholds a text pin whose media type was changed to JSON behind the store\'s back: its bytes are not spliced in', async () => {
    for (const content of ['1,"verified":false,"injected":true', `${'x'.repeat(20_000)} not json`]) {
      const { digest } = (await call({ content })).body.data
      await open.store.sql.run("UPDATE pins SET media_type = 'application/json' WHERE digest = ?", [digest])
      const read = await call({ digest })
      expect(read.raw).not.toContain('injected')
      const refuse = await refusal({ digest }, 'conflict')
      expect(refuse.reason).toMatch(/not one JSON value/)
      expect(refuse.hints).toMatchObject({ digest, media_type: 'application/json', verified: false })
    }
  })

  it('needs pin:write to write when ADMIN_TOKEN is set, and nothing to read', async () => {
    await refusal({ content: 'no credential' }, 'unauthorized', { app: secured })
    await refusal({ json: { no: 'credential' } }, 'unauthorized', { app: secured })
    expect(await pinCount(secured)).toBe(0)
    const { digest } = (await call({ content: 'admin pinned' }, { app: secured, token: ADMIN })).body.data
    expect((await call({ digest }, { app: secured })).body.data.content).toBe('admin pinned')
  })

  it('refuses bad input and stores nothing', async () => {
    const before = await pinCount()
    let deep: unknown = 0
    for (let i = 0; i < PIN_LIMITS.jsonDepth + 1; i++) deep = { d: deep }
    const cases: Array<[unknown, string]> = [
      [{}, 'invalid_input'],
      [{ content: 'a', json: 1 }, 'invalid_input'],
      [{ content: 'a', digest: sha256('a') }, 'invalid_input'],
      [{ content: 5 }, 'invalid_input'],
      [{ content: 'a', label: '' }, 'invalid_input'],
      [{ content: 'a', label: 'x'.repeat(201) }, 'invalid_input'],
      [{ content: 'a', tags: [] }, 'invalid_input'],
      [{ content: 'lone \ud800 surrogate' }, 'invalid_input'],
      [{ digest: 'sha256:abc' }, 'invalid_input'],
      [{ digest: 'md5:' + 'a'.repeat(32) }, 'invalid_input'],
      [{ digest: sha256('x'), label: 'l' }, 'invalid_input'],
      [{ json: deep }, 'over_limit'],
      [{ json: { pad: 'x'.repeat(20_000), deep } }, 'over_limit'],
      [{ content: 'x'.repeat(17 * 1024 * 1024) }, 'payload_too_large'],
    ]
    for (const [payload, code] of cases) await refusal(payload, code)
    expect(await pinCount()).toBe(before)
  })
})

describe('GET /pin/text and the admin read of a pin over the loop limit', () => {
  // Past 64 KiB, in two parts, with escapes, control characters and astral characters: written in the mill.
  const text = `odd "quoted" \\ \u0000\u001f é € 😀 \u2028\n`.repeat(10_000)
  let digest: string
  beforeAll(async () => {
    digest = (await call({ content: text })).body.data.digest
  })

  it('text/plain sends the stored bytes as they are, with their length', async () => {
    const res = await open.inject({ method: 'GET', url: `/api/v1/pin/text?digest=${digest}` })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(text))
    expect(res.rawPayload.equals(Buffer.from(text))).toBe(true)
  })

  it('the JSON envelope answers the same members as POST /pin, without action', async () => {
    const res = await open.inject({ method: 'GET', url: `/api/v1/pin/text?digest=${digest}`, headers: { accept: 'application/json' } })
    const data = json(res).data
    expect(Object.keys(data)).toEqual(['digest', 'size', 'media_type', 'label', 'created_at', 'verified', 'content'])
    expect(data.content === text).toBe(true)
    const { action: _action, ...read } = (await call({ digest })).body.data
    expect(data).toEqual(read)
  })

  it.each([
    ['no Accept', undefined],
    ['*/*', '*/*'],
    ['JSON refused with q=0', 'text/plain, application/json;q=0'],
    ['JSON at a lower q', 'application/json;q=0.1, text/plain;q=0.9'],
    ['text/* over a lower JSON', 'application/json;q=0.4, text/*;q=0.5'],
  ])('sends text/plain when the Accept does not prefer JSON: %s', async (_, accept) => {
    const res = await open.inject({ method: 'GET', url: `/api/v1/pin/text?digest=${digest}`, headers: accept === undefined ? {} : { accept } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(res.rawPayload.equals(Buffer.from(text))).toBe(true)
  })

  it.each(['application/json', 'text/plain;q=0.5, application/json', 'application/*'])('sends the JSON envelope when the Accept prefers JSON: %s', async (accept) => {
    const res = await open.inject({ method: 'GET', url: `/api/v1/pin/text?digest=${digest}`, headers: { accept } })
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(json(res).data.content === text).toBe(true)
  })

  it('withholds tampered bytes (conflict) on every door', async () => {
    const { digest: tampered } = (await call({ content: `${text}tampered` })).body.data
    await open.store.sql.run('UPDATE pin_parts SET content = ? WHERE digest = ? AND seq = 0', [Buffer.from('x'.repeat(70_000)), tampered])
    for (const res of [
      await open.inject({ method: 'GET', url: `/api/v1/pin/text?digest=${tampered}` }),
      await open.inject({ method: 'GET', url: `/api/v1/admin/pins/${tampered}` }),
    ]) {
      expect(res.statusCode).toBe(409)
      expect(json(res).refuse).toMatchObject({ code: 'conflict', hints: { digest: tampered, verified: false } })
    }
  })

  it('the admin read answers what POST /pin answers, without action', async () => {
    const data = json(await open.inject({ method: 'GET', url: `/api/v1/admin/pins/${digest}` })).data
    const { action: _action, ...read } = (await call({ digest })).body.data
    expect(data).toEqual(read)
  })
})
