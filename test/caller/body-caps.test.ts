// Issue #30 item 4: /pin, /run and /cli take the default body limit (SPEC §1.5 gives 16 MiB only to /sat, /jsonsat,
// /clauses, /quiz, /digest, /diff and CSV import). Pin content over it is refused 413 on every door, naming the limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { registry } from '../../src/caller/registry.js'

let app: FastifyInstance
let limit: number
beforeAll(async () => {
  app = await buildTestApp()
  limit = app.config.bodyLimitBytes
})
afterAll(async () => app.close())

const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object })
/** Pin content that makes a body just over the default limit. */
const overLimit = () => 'x'.repeat(limit + 1)
const pinCount = async () => Number((await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pins'))!.n)

function expectTooLarge(res: Awaited<ReturnType<typeof post>>) {
  expect(res.statusCode).toBe(413)
  const { refuse } = json(res)
  expect(refuse).toMatchObject({ code: 'payload_too_large', hints: { limit: 'BODY_LIMIT_BYTES', value: limit } })
  expect(refuse.reason).toContain(`${limit} bytes (BODY_LIMIT_BYTES)`)
}

describe('body limits of /pin, /run and /cli', () => {
  it('are the default limit in the registry, and the 16 MiB operations are the SPEC\'s list', () => {
    for (const name of ['pin', 'run', 'cli']) expect(registry.byName(name)!.bodyLimit).toBe('default')
    const large = registry.operations.filter((op) => op.bodyLimit === 'large').map((op) => op.path).sort()
    expect(large).toEqual(['/clauses', '/diff', '/digest', '/jsonsat', '/quiz', '/sat'])
  })

  it('refuse pin content over the limit with 413 naming it: directly, as a /run item and as a /cli line', async () => {
    const before = await pinCount()
    const content = overLimit()
    expectTooLarge(await post('/api/v1/pin', { content }))
    expectTooLarge(await post('/api/v1/run', { op: 'pin', input: { content } }))
    expectTooLarge(await post('/api/v1/run', { batch: [{ op: 'pin', input: { content } }] }))
    expectTooLarge(await post('/api/v1/cli', { line: `pin --content ${content}` }))
    expect(await pinCount()).toBe(before)
  })

  it('a body over 1 MiB of another route still names its own limit', async () => {
    const res = await post('/api/v1/digest', { content: 'x'.repeat(app.config.largeBodyLimitBytes + 1) })
    expect(res.statusCode).toBe(413)
    expect(json(res).refuse).toMatchObject({ code: 'payload_too_large', hints: { limit: 'LARGE_BODY_LIMIT_BYTES', value: app.config.largeBodyLimitBytes } })
  })

  it("MCP's pin tool refuses the same content over the same limit", async () => {
    const res = await app.inject({
      method: 'POST', url: '/mcp', headers: { accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pin', arguments: { content: overLimit() } } },
    })
    const answer = res.json() as { result: { isError: boolean; structuredContent: { refuse: { code: string; reason: string } } } }
    expect(answer.result.isError).toBe(true)
    expect(answer.result.structuredContent.refuse.code).toBe('payload_too_large')
    expect(answer.result.structuredContent.refuse.reason).toContain(`pin takes at most ${limit} (BODY_LIMIT_BYTES)`)
  })

  it('pin content just under the limit is pinned, exactly', async () => {
    const content = 'é'.repeat((limit - 64) / 2) // two bytes a character: the body is just under the limit
    const res = await post('/api/v1/pin', { content })
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
    expect(json(res).data).toMatchObject({ action: 'pinned', size: Buffer.byteLength(content), created: true })
  })
})
