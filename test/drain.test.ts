// Issue #25 item 10: at SIGTERM a request whose job can finish within the grace period gets its answer (a sync /sat of
// ~1.5 s), not a 503; work that cannot finish in time is given up for the next start. The compiled server as a child
// process, over a real socket.
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { pigeonholeDimacs } from '../src/engines/sat/pigeonhole.js'
import { freePort, startServer, stopServer, waitForHealth, type ServerProcess } from './process.js'

let server: ServerProcess | null = null
afterEach(async () => {
  if (server) await stopServer(server)
  server = null
})

describe('drain at SIGTERM (item 10)', () => {
  it('answers a sync /sat in flight at the signal, then exits 0', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    server = startServer({
      PORT: String(port), DATABASE_PATH: ':memory:', SHUTDOWN_GRACE_MS: '12000', RATE_LIMIT_PER_MIN: '0', MAX_EVENT_LOOP_DELAY_MS: '60000',
    }, { compiled: true })
    await waitForHealth(`${base}/api/v1/health`, { server })
    // A search that cannot finish: it spends its 1.5 s budget, then answers UNKNOWN.
    const inFlight = request(`${base}/api/v1/sat`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dimacs: pigeonholeDimacs(12), want_model: false, timeout_ms: 1500 }),
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    server.child.kill('SIGTERM')
    const answer = await inFlight
    const body = (await answer.body.json()) as { ok: boolean; data: { status: string }; refuse: unknown }
    expect(answer.statusCode, JSON.stringify(body.refuse)).toBe(200)
    expect(body.data.status).toBe('UNKNOWN')
    expect(await server.exited).toEqual({ code: 0, signal: null })
  }, 60_000)
})
