// Issue #13: a /pin of the largest content accepted (15 MB, two bytes a character in memory: one character beyond
// Latin-1 is enough) over a real socket, with a health monitor beside it. The content came back from the body thread
// whole and was scanned whole for lone surrogates: 25–30 ms of the loop's CPU in one stretch a request (8–14 ms for a
// text of one byte a character); it now comes in 256 Ki-character parts, a part a turn, and no stretch grows with it.
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


const CHARS = 15_000_000
/** A fresh 15 MB content (each pins new bytes) whose text in memory is two bytes a character. */
const contentOf = (n: number) => `${n} ${'p'.repeat(CHARS)}€`
const sha256 = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex')

/** POSTs a body built beforehand (the client's own work is not the host's). */
async function pin(body: Buffer): Promise<{ status: number; body: any }> {
  const res = await request(`${host.base}/api/v1/pin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.statusCode, body: await res.body.json() }
}

describe('a 15 MB /pin content', () => {
  beforeAll(async () => {
    // The go-live report scans the sources once after start (0.45 s on the loop), and a first pin compiles its answer's
    // serializer: start-up costs, not this file's subject.
    await pastStartReport(host.app)
    expect((await pin(Buffer.from(JSON.stringify({ content: contentOf(0) })))).status).toBe(200)
  }, 120_000)

  it('is encoded, hashed and stored with no stretch of the loop growing with it', async () => {
    for (let n = 1; n <= 3; n++) {
      const content = contentOf(n)
      const body = Buffer.from(JSON.stringify({ content }))
      const digest = sha256(content)
      const { value: res, health } = await besideHealth(host.base, `pin of ${(body.length / 1e6).toFixed(1)} MB (${n})`, () => pin(body))
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
      expect(res.body.data).toMatchObject({ action: 'pinned', digest, size: Buffer.byteLength(content), created: true })
      expect(health.failures).toBe(0)
    }
  }, 120_000)

  it('with a lone surrogate is refused as before, without its text joined', async () => {
    const body = Buffer.from(JSON.stringify({ content: `${'p'.repeat(CHARS)}\ud800` }))
    const res = await pin(body)
    expect(res.status).toBe(400)
    expect(res.body.refuse.code).toBe('invalid_input')
    expect(JSON.stringify(res.body.refuse)).toMatch(/lone surrogate/)
  }, 60_000)
})
