// Issue #13 item 7: SIGTERM with keep-alive clients connected. The compiled server as a child process, an undici client
// holding one idle keep-alive connection and one request in flight (its body still arriving when the signal lands).
import { afterEach, describe, expect, it } from 'vitest'
import { Readable } from 'node:stream'
import { Agent, request } from 'undici'
import { freePort, startServer, stopServer, waitForHealth, type ServerProcess } from './process.js'

let server: ServerProcess | null = null
afterEach(async () => {
  if (server) await stopServer(server)
  server = null
})

const GRACE_MS = 20_000

describe('shutdown with keep-alive clients (item 7)', () => {
  it('closes idle connections at SIGTERM, answers the in-flight request with Connection: close and exits 0 without waiting out the grace', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    server = startServer(
      { PORT: String(port), DATABASE_PATH: ':memory:', SHUTDOWN_GRACE_MS: String(GRACE_MS), RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'info' },
      { compiled: true },
    )
    await waitForHealth(`${base}/api/v1/health`, { server })
    const agent = new Agent({ keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000, connections: 4 })
    try {
      // An idle keep-alive connection: one answered request, the socket kept open.
      const idle = await request(`${base}/api/v1/health`, { dispatcher: agent })
      await idle.body.dump()
      expect(idle.headers.connection).toBe('keep-alive')

      // A request in flight: headers and half the body sent, the rest only after SIGTERM.
      let release!: () => void
      const released = new Promise<void>((resolve) => { release = resolve })
      const text = JSON.stringify({ op: 'surface', input: {} })
      async function* slowBody() {
        yield Buffer.from(text.slice(0, 10))
        await released
        yield Buffer.from(text.slice(10))
      }
      const inFlight = request(`${base}/api/v1/run`, {
        dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(text.length) }, body: Readable.from(slowBody()),
      })
      await new Promise((r) => setTimeout(r, 300)) // the body's first half has reached the server
      server.child.kill('SIGTERM')
      await new Promise((r) => setTimeout(r, 500)) // draining has begun
      release()
      const answer = await inFlight
      const body = (await answer.body.json()) as { ok: boolean }
      expect(answer.statusCode).toBe(200)
      expect(body.ok).toBe(true)
      expect(answer.headers.connection).toBe('close')

      const exit = await server.exited
      expect(exit, server.stderr() + server.stdout().slice(-2000)).toEqual({ code: 0, signal: null })
      // Exit code 1 after "killed by timeout" was the symptom: the grace waited out for a connection kept alive.
      expect(server.stderr()).not.toContain('killed by timeout')
    } finally {
      await agent.close().catch(() => undefined)
    }
  }, GRACE_MS + 30_000)
})
