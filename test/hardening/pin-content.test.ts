// Issue #30 item 4: /pin takes the default body limit (1 MiB), so its content is at most about a megabyte when it
// reaches the loop; a larger body is refused by its Content-Length before it is read. Over a real socket, with a health
// monitor beside the largest content accepted (two bytes a character in memory: one character beyond Latin-1 is enough).
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { besideHealth, pastStartReport } from './monitor.js'

// A file, as in production (its WAL is checkpointed off the loop).
const dir = mkdtempSync(join(tmpdir(), 'ncm-pin-content-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const host = listeningTestApp({ env: { DATABASE_PATH: join(dir, 'hub.sqlite') } })

/** Characters that, with the JSON around them, make a body just under the default limit. */
const CHARS = 1_000_000
/** A fresh content (each pins new bytes) whose text in memory is two bytes a character. */
const contentOf = (n: number) => `${n} ${'p'.repeat(CHARS)}€`
const sha256 = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex')

/** POSTs a body built beforehand (the client's own work is not the host's). */
async function pin(body: Buffer): Promise<{ status: number; body: any }> {
  const res = await request(`${host.base}/api/v1/pin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.statusCode, body: await res.body.json() }
}

describe('/pin content at the default body limit', () => {
  beforeAll(async () => {
    // The go-live report scans the sources once after start, and a first pin compiles its answer's serializer.
    await pastStartReport(host.app)
    expect((await pin(Buffer.from(JSON.stringify({ content: contentOf(0) })))).status).toBe(200)
  }, 120_000)

  it('is encoded, hashed and stored exactly, health answering', async () => {
    for (let n = 1; n <= 3; n++) {
      const content = contentOf(n)
      const body = Buffer.from(JSON.stringify({ content }))
      expect(body.length).toBeLessThanOrEqual(host.app.config.bodyLimitBytes)
      const { value: res, health } = await besideHealth(host.base, `pin of ${(body.length / 1e6).toFixed(1)} MB (${n})`, () => pin(body))
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
      expect(res.body.data).toMatchObject({ action: 'pinned', digest: sha256(content), size: Buffer.byteLength(content), created: true })
      expect(health.failures).toBe(0)
    }
  }, 120_000)

  it('with a lone surrogate is refused invalid_input', async () => {
    const res = await pin(Buffer.from(JSON.stringify({ content: `${'p'.repeat(CHARS)}\ud800` })))
    expect(res.status).toBe(400)
    expect(res.body.refuse.code).toBe('invalid_input')
    expect(JSON.stringify(res.body.refuse)).toMatch(/lone surrogate/)
  }, 60_000)

  it('over the limit (15 MB) is refused 413 naming the limit', async () => {
    const res = await pin(Buffer.from(JSON.stringify({ content: 'p'.repeat(15_000_000) })))
    expect(res.status).toBe(413)
    expect(res.body.refuse).toMatchObject({ code: 'payload_too_large', hints: { limit: 'BODY_LIMIT_BYTES', value: host.app.config.bodyLimitBytes } })
  }, 60_000)
})
