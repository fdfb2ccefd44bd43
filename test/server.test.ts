// The real process: configuration errors name the variable; SIGTERM drains and exits cleanly.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { REPO_ROOT } from '../src/version.js'

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', MILL_THREADS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, exited, stderr: () => stderr }
}

async function waitForHealth(url: string, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    try {
      const res = await request(url)
      await res.body.dump()
      if (res.statusCode === 200) return
    } catch {
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw new Error(`${url} never answered`)
}

describe('the server process', () => {
  it('refuses to start on a bad variable and names it', async () => {
    const server = startServer({ PORT: 'eighty', DATABASE_PATH: ':memory:' })
    expect(await server.exited).toBe(78)
    expect(server.stderr()).toMatch(/PORT="eighty"/)
  })

  it('serves on its data directory and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ncm-server-'))
    const port = 20000 + Math.floor(Math.random() * 20000)
    const server = startServer({ PORT: String(port), DATA_DIR: dataDir })
    try {
      await waitForHealth(`http://127.0.0.1:${port}/api/v1/health`)
      const res = await request(`http://127.0.0.1:${port}/api/v1/`)
      expect(((await res.body.json()) as { surface: string }).surface).toBe('marketing-caller')
      server.child.kill('SIGTERM')
      expect(await server.exited).toBe(0)
    } finally {
      server.child.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
