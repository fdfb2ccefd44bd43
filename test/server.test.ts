// The real process: configuration errors name the variable; SIGTERM drains and exits cleanly; an unhandled rejection
// closes it, unless it is ioredis's rejection at a connection's close.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { freePort, startServer, stopServer, waitForHealth } from './process.js'

describe('the server process', () => {
  it('refuses to start on a bad variable and names it', async () => {
    const server = startServer({ PORT: 'eighty', DATABASE_PATH: ':memory:' })
    expect((await server.exited).code).toBe(78)
    expect(server.stderr()).toMatch(/PORT="eighty"/)
  })

  it('a port already in use: one line naming PORT, no stack trace, exit 1', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const server = startServer({ PORT: String(port), DATABASE_PATH: ':memory:' }, { compiled: true })
      expect((await server.exited).code).toBe(1)
      const lines = server.stderr().trim().split('\n')
      expect(lines).toEqual([expect.stringContaining(`port ${port} on 127.0.0.1 is already in use (PORT=${port})`)])
      expect(server.stderr()).not.toMatch(/\n\s+at /)
    } finally {
      taken.close()
    }
  })

  it('serves on its data directory and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ncm-server-'))
    const port = await freePort()
    const server = startServer({ PORT: String(port), DATA_DIR: dataDir })
    try {
      await waitForHealth(`http://127.0.0.1:${port}/api/v1/health`, { server })
      const res = await request(`http://127.0.0.1:${port}/api/v1/`)
      expect(((await res.body.json()) as { surface: string }).surface).toBe('marketing-caller')
      server.child.kill('SIGTERM')
      expect((await server.exited).code).toBe(0)
    } finally {
      await stopServer(server)
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("keeps serving past ioredis's stray close rejection, and closes gracefully, exit 1, on any other", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ncm-rejections-'))
    // Preloaded into the server: the first SIGWINCH leaves ioredis's close rejection unhandled, the second a real one.
    const preload = join(dir, 'rejections.cjs')
    writeFileSync(preload, `let n = 0
process.on('SIGWINCH', () => {
  const err = new Error(n++ === 0 ? 'Connection is closed.' : 'a real fault')
  if (n === 1) err.stack = 'Error: Connection is closed.\\n    at close (/app/node_modules/ioredis/built/redis/event_handler.js:1:1)'
  Promise.reject(err)
})
`)
    const port = await freePort()
    const server = startServer({ PORT: String(port), DATABASE_PATH: ':memory:', NODE_OPTIONS: `--require ${preload}` }, { compiled: true })
    try {
      await waitForHealth(`http://127.0.0.1:${port}/api/v1/health`, { server })
      server.child.kill('SIGWINCH')
      await expect.poll(() => server.stdout(), { timeout: 10_000 }).toMatch(/bullmq#3546/)
      expect((await request(`http://127.0.0.1:${port}/api/v1/health`)).statusCode).toBe(200)
      server.child.kill('SIGWINCH')
      expect((await server.exited).code).toBe(1)
      expect(server.stdout()).toMatch(/closing after an error/)
      expect(server.stdout()).toMatch(/a real fault/)
    } finally {
      await stopServer(server)
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
