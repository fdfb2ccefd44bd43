// Issue #13: a 15 MB pin read back through the other doors than POST /api/v1/pin (large-answers.test.ts), over a real
// socket with health and the loop watched: GET /api/v1/admin/pins/{digest} writes it a part per loop turn (before: one
// fast-json-stringify call, 60-80 ms of the loop's CPU); MCP's pin tool links it instead of inlining it (before: the
// SDK stringified its 15 MB twice, content and structuredContent, ~250 ms), and its resource is refused over_limit
// naming the HTTP read (before: 40-60 ms). MCP calls whose answers grow with their input take the routes'
// memory reservations: 50 reads of the pin through the tool at once held 2.5 GB of RSS.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { MCP_INLINE_ANSWER_CHARS } from '../../src/mcp/tool-answer.js'
import { listeningTestApp } from '../helper.js'
import { besideHealth, keepingBytes, pastStartReport } from './monitor.js'

const dir = mkdtempSync(join(tmpdir(), 'ncm-pin-reads-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const host = listeningTestApp({
  env: { DATABASE_PATH: join(dir, 'hub.sqlite'), BODY_LIMIT_BYTES: String(16 * 2 ** 20), MEMORY_ADMISSION_BYTES: String(2 * 16 * 2 ** 20), MEMORY_PER_CLIENT_BYTES: String(2 * 16 * 2 ** 20) },
})


const content = `pin reads ${'r'.repeat(15_000_000)}`
const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`

const mcp = (method: string, params: unknown) => keepingBytes(`${host.base}/mcp`, {
  body: { jsonrpc: '2.0', id: 1, method, params }, headers: { accept: 'application/json, text/event-stream' },
})

describe('a 15 MB pin read back through the admin route and MCP', () => {
  beforeAll(async () => {
    await pastStartReport(host.app)
    const pinned = await keepingBytes(`${host.base}/api/v1/pin`, { body: { content } })
    expect(pinned.status).toBe(200)
    expect(pinned.json().data.digest).toBe(digest)
  }, 60_000)

  it('GET /api/v1/admin/pins/{digest} answers the content whole, a part per loop turn', async () => {
    const { value: read, health } = await besideHealth(host.base, 'admin pin read', () => keepingBytes(`${host.base}/api/v1/admin/pins/${digest}`))
    expect(read.status).toBe(200)
    const answer = read.json()
    expect(answer).toMatchObject({ ok: true, data: { digest, verified: true, size: content.length } })
    expect(answer.data.content === content).toBe(true)
    expect(health.failures).toBe(0)
  })

  it("MCP's pin tool links the answer: its short members inline, the content named with its size and the route to read it", async () => {
    const { value: called, health } = await besideHealth(host.base, 'MCP pin tool', () => mcp('tools/call', { name: 'pin', arguments: { digest } }))
    expect(called.status).toBe(200)
    const result = called.json().result
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({
      inlined: false, max_inline_chars: MCP_INLINE_ANSWER_CHARS, result_url: null, route: `POST ${host.base}/api/v1/pin`,
      answer: { action: 'read', digest, verified: true, size: content.length, media_type: 'text/plain' },
      omitted: [{ member: 'content', chars: JSON.stringify(content).length }], omitted_more: 0,
    })
    expect(result.structuredContent.answer_chars).toBeGreaterThan(content.length)
    expect(result.content[0].text).toContain(`POST ${host.base}/api/v1/pin with the same arguments`)
    expect(health.failures).toBe(0)
  })

  it("MCP's pin resource is refused over_limit, naming the HTTP read", async () => {
    const { value: read, health } = await besideHealth(host.base, 'MCP pin resource', () => mcp('resources/read', { uri: `ncm://pins/${digest}` }))
    expect(read.status).toBe(200)
    const error = read.json().error
    expect(error.data.refuse).toMatchObject({ code: 'over_limit', hints: { limit: 'MCP_INLINE_ANSWER_CHARS', chars: content.length } })
    expect(error.message).toContain(`POST ${host.base}/api/v1/pin`)
    expect(health.failures).toBe(0)
  })

  it('MCP tool calls that read the pin reserve memory: 50 at once, the rest refused occupied', async () => {
    const before = process.memoryUsage.rss()
    let peak = before
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 10)
    const answers = await Promise.all(Array.from({ length: 50 }, async () => (await mcp('tools/call', { name: 'pin', arguments: { digest } })).json().result))
    clearInterval(sampler)
    const served = answers.filter((a) => !a.isError)
    const refused = answers.filter((a) => a.isError)
    console.log(`50 MCP reads of a 15 MB pin at once: ${served.length} served, ${refused.length} refused; RSS ${(before / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MiB`)
    // Two at once are served (a few more may find a reservation freed).
    expect(served.length).toBeGreaterThanOrEqual(2)
    expect(refused.length).toBeGreaterThan(0)
    for (const a of served) expect(a.structuredContent.answer.digest).toBe(digest)
    for (const a of refused) expect(a.structuredContent.refuse).toMatchObject({ code: 'occupied', retry_after_s: 1 })
    // Before, all 50 were held at once: 2.3-2.5 GB over the start.
    expect(peak - before).toBeLessThan(900 * 2 ** 20)
  }, 120_000)

  it('GET /api/v1/admin/pins/{digest} reserves memory too: 50 at once, the rest refused occupied', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, async () => {
      const res = await request(`${host.base}/api/v1/admin/pins/${digest}`)
      // Read to the end: undici's dump() stops at 128 KiB and leaves the connection for the host's close to wait on.
      for await (const _chunk of res.body);
      return res.statusCode
    }))
    const served = answers.filter((status) => status === 200).length
    console.log(`50 admin reads of a 15 MB pin at once: ${served} served`)
    expect(served).toBeGreaterThanOrEqual(2)
    expect(answers.filter((status) => status === 503).length).toBe(50 - served)
    expect(served).toBeLessThan(50)
  }, 120_000)
})
