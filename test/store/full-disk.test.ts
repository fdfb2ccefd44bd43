// Issue #25 item 6: DATA_DIR on a full filesystem (a small tmpfs this test mounts and removes; skipped with the reason
// printed where mounting is not permitted). Pins, imports and job submissions are refused `occupied` naming the full
// store (Retry-After), never `internal`; health turns `fail` with the reason; SIGTERM still exits 0; every pin
// acknowledged before reads back after a restart. The compiled server as a child process, over a real socket.
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, unlinkSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { freePort, startServer, stopServer, waitForHealth, type ServerProcess } from '../process.js'

const mountPoint = mkdtempSync(join(tmpdir(), 'ncm-full-'))
const unmountable = mountTmpfs(mountPoint)
if (unmountable) console.warn(`skipping the full-disk test: ${unmountable}`)

function mountTmpfs(dir: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128m', 'tmpfs', dir], { stdio: 'pipe' })
    return null
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    return `mount -t tmpfs is not permitted here (${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()})`
  }
}

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await request(base + path, {
    method: method as 'GET', headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], json: text.startsWith('{') ? JSON.parse(text) : null }
}

/** Fills the filesystem with one file until it refuses another byte. */
function fill(file: string): void {
  const fd = openSync(file, 'w')
  const block = Buffer.alloc(256 * 1024, 1)
  try {
    for (;;) writeSync(fd, block)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
    // the last partial block: down to the last byte
    const byte = Buffer.alloc(4096, 1)
    try {
      for (;;) writeSync(fd, byte)
    } catch {
      // full
    }
  } finally {
    closeSync(fd)
  }
}

describe.skipIf(unmountable !== null)('a full DATA_DIR (item 6)', () => {
  let server: ServerProcess
  let base: string
  const env = async () => {
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    return {
      PORT: String(port), DATA_DIR: join(mountPoint, 'data'), RATE_LIMIT_PER_MIN: '0', MAX_EVENT_LOOP_DELAY_MS: '60000', SHUTDOWN_GRACE_MS: '8000', LOG_LEVEL: 'warn',
    }
  }
  beforeAll(async () => {
    server = startServer(await env(), { compiled: true })
    await waitForHealth(`${base}/health`, { server, timeoutMs: 90_000 })
  }, 120_000)
  afterAll(async () => {
    if (server) await stopServer(server)
    try {
      execFileSync('umount', [mountPoint], { stdio: 'pipe' })
    } finally {
      rmSync(mountPoint, { recursive: true, force: true })
    }
  })

  it('refuses writes as occupied (store full), reports it in health, exits 0 at SIGTERM and loses nothing acknowledged', async () => {
    const acknowledged: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await call(base, 'POST', '/api/v1/pin', { content: `before the disk filled ${i} ${'x'.repeat(1000)}` })
      expect(res.status).toBe(200)
      acknowledged.push(res.json.data.digest)
    }
    const run = await call(base, 'POST', '/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy: 'sma_cross' })
    expect(run.status, JSON.stringify(run.json)).toBe(200)
    const filler = join(mountPoint, 'filler')
    fill(filler)
    // 960 KiB back: still under the full floor (1 MiB), so every write that adds rows is refused before it begins,
    // while an UPDATE or DELETE has the pages of WAL it needs.
    truncateSync(filler, statSync(filler).size - 960 * 1024)

    const refused = [
      await call(base, 'POST', '/api/v1/pin', { content: 'y'.repeat(1000 * 1024) }),
      await call(base, 'POST', '/api/v11/datasets', { symbol: 'FULL', timeframe: '1d', csv: bigCsv(20_000) }),
      await call(base, 'POST', '/api/v1/sat', { dimacs: `c ${'z'.repeat(512 * 1024)}\np cnf 1 1\n1 0\n` }, { prefer: 'respond-async' }),
    ]
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.json)).toBe(503)
      expect(res.retryAfter).toBeDefined()
      const refusal = res.json.refuse ?? res.json
      expect(refusal.code).toBe('occupied')
      expect(JSON.stringify(refusal)).toMatch(/disk full/)
    }

    // A DELETE is not refused before it begins (it may free room); it runs, unless SQLite itself finds no page for its
    // WAL (the checkpointer may have taken the room given back), and then it is refused the same clean way.
    const deleted = await call(base, 'DELETE', `/api/v11/runs/${run.json.run.id}`)
    if (deleted.status !== 200) {
      expect(deleted.status, JSON.stringify(deleted.json)).toBe(503)
      expect((await call(base, 'GET', '/api/v1/health')).json.data.store.storage.reason).not.toMatch(/refused before writing/)
    }

    const health = (await call(base, 'GET', '/api/v1/health')).json.data
    expect(health.status).toBe('fail')
    expect(health.store.storage.state).toBe('full')
    expect(health.checks['database:responseTime'][0].output).toMatch(/storage full/)
    const root = (await call(base, 'GET', '/health')).json
    expect(root.status).toBe('degraded')

    server.child.kill('SIGTERM')
    expect(await server.exited, server.stderr()).toEqual({ code: 0, signal: null })

    // A restart while still full (a deploy, a crash loop): it starts, reads answer, writes are refused as before. (Its
    // close checkpointed and removed the WAL, which gave space back: filled again first.)
    fill(join(mountPoint, 'filler-2'))
    truncateSync(join(mountPoint, 'filler-2'), Math.max(0, statSync(join(mountPoint, 'filler-2')).size - 64 * 1024))
    server = startServer(await env(), { compiled: true })
    await waitForHealth(`${base}/health`, { server, timeoutMs: 90_000 })
    expect((await call(base, 'POST', '/api/v1/pin', { digest: acknowledged[0] })).status).toBe(200)
    const stillFull = await call(base, 'POST', '/api/v1/pin', { content: 'after a restart on a full disk' })
    expect(stillFull.status, JSON.stringify(stillFull.json)).toBe(503)
    expect((stillFull.json.refuse ?? stillFull.json).code).toBe('occupied')
    server.child.kill('SIGTERM')
    expect(await server.exited, server.stderr()).toEqual({ code: 0, signal: null })

    // Space again: a restart on the same file has every acknowledged pin.
    unlinkSync(filler)
    unlinkSync(join(mountPoint, 'filler-2'))
    server = startServer(await env(), { compiled: true })
    await waitForHealth(`${base}/health`, { server, timeoutMs: 90_000 })
    for (const digest of acknowledged) {
      const read = await call(base, 'POST', '/api/v1/pin', { digest })
      expect(read.status, digest).toBe(200)
      expect(read.json.data.verified).toBe(true)
    }
    expect((await call(base, 'GET', '/api/v1/health')).json.data.store.storage.state).not.toBe('full')
  }, 120_000)
})

function bigCsv(days: number): string {
  const rows = Array.from({ length: days }, (_, i) => {
    const date = new Date(Date.UTC(1990, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
    return `${date},10,11,9,10.5,1000`
  })
  return `Date,Open,High,Low,Close,Volume\n${rows.join('\n')}\n`
}
