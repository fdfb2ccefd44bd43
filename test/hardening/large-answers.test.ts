// Issue #13: a large answer is written, stored and sent a part per turn of the event loop, over a real socket with a
// health monitor beside it — a 15 MB pin read back and a backtest answering a 250k-bar equity curve with its trades.
// Before, each was serialised in one call (and, for the backtest's job, serialised and parsed once more to store it):
// 60–70 ms of the loop's CPU per read-back, 100+ ms per backtest.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { START_REPORT_DELAY_MS } from '../../src/admin/collectors.js'
import { listeningTestApp } from '../helper.js'
import { besideHealth } from './monitor.js'

const dir = mkdtempSync(join(tmpdir(), 'ncm-large-answers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const host = listeningTestApp({ env: { DATABASE_PATH: join(dir, 'hub.sqlite'), BODY_LIMIT_BYTES: String(16 * 2 ** 20) } })

/** CPU of the loop's thread between two turns that no answer may reach (before: 60–70 ms and more; after: 10–30). */
const STRETCH_BOUND_MS = 45

/**
 * POSTs and keeps the answer's bytes as they arrive, parsing them only after the watch: the client shares the loop's
 * thread here, and parsing 15 MB of JSON would be its own stretch, not the host's.
 */
async function postKeepingBytes(path: string, body: string) {
  const res = await request(`${host.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const chunks: Buffer[] = []
  for await (const chunk of res.body) chunks.push(chunk as Buffer)
  return { status: res.statusCode, headers: res.headers, bytes: () => Buffer.concat(chunks) }
}


describe('large answers are written in parts', () => {
  beforeAll(async () => {
    // The go-live report scans the sources on the loop once after start: over before anything is measured.
    await new Promise((resolve) => setTimeout(resolve, START_REPORT_DELAY_MS + 500))
    await host.app.adminCollectors.readiness.report({ smoke: false })
  }, 60_000)

  it('reads a 15 MB pin back, its content whole, health answering', async () => {
    const content = `large answers ${'p'.repeat(15_000_000)}`
    const pinned = await postKeepingBytes('/api/v1/pin', JSON.stringify({ content }))
    expect(pinned.status).toBe(200)
    const digest = JSON.parse(pinned.bytes().toString()).data.digest as string
    expect(digest).toBe(`sha256:${createHash('sha256').update(content).digest('hex')}`)
    for (let round = 1; round <= 2; round++) {
      const { value: read, health, stretch } = await besideHealth(host.base, `15 MB pin read back (${round})`,
        () => postKeepingBytes('/api/v1/pin', JSON.stringify({ digest })))
      expect(read.status).toBe(200)
      expect(Number(read.headers['content-length'])).toBe(read.bytes().length)
      const answer = JSON.parse(read.bytes().toString())
      expect(answer).toMatchObject({ ok: true, refuse: null, data: { action: 'read', verified: true, digest } })
      expect(answer.data.content === content).toBe(true)
      expect(health.failures).toBe(0)
      expect(stretch.maxCpuMs).toBeLessThan(STRETCH_BOUND_MS)
    }
  })
})
