// scripts/smoke.py against the app on a real socket (127.0.0.1, port 0), and scripts/client_example.py.
import { execFile, execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.js'
import { REPO_ROOT } from '../../src/version.js'

const python = (() => {
  try {
    return execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim()
  } catch {
    return null
  }
})()
const hasRequests = python !== null && (() => {
  try {
    execFileSync('python3', ['-c', 'import requests'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('python3', [join(REPO_ROOT, 'scripts', script), ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
}

const ADMIN_TOKEN = 'smoke-script-token-0123456789'

describe.skipIf(!python)('scripts/smoke.py (needs python3)', () => {
  let app: FastifyInstance
  let url: string
  beforeAll(async () => {
    app = await buildTestApp({ env: { ADMIN_TOKEN } })
    url = await app.listen({ host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await app.close()
  })

  it('passes every admin route with the token and exits 0', async () => {
    const { code, stdout, stderr } = await run('smoke.py', ['--url', url, '--token', ADMIN_TOKEN])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const rows = stdout.split('\n').filter((l) => l.startsWith('/'))
    expect(rows.map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ['/admin', '200'],
      ['/api/v1/admin/truth/summary', '200'],
      ['/api/v1/admin/command-post/summary', '200'],
      ['/api/v1/admin/go-live/overview', '200'],
    ])
    expect(stdout).toMatch(/^readiness: (ready|blocked), boot pass, score \d+, plan (go|review|no-go)$/m)
    expect(stdout).toMatch(/^4 passed, 0 failed$/m)
  })

  it('fails (exit 1) without the token: the JSON routes answer 401', async () => {
    const { code, stdout } = await run('smoke.py', ['--url', url])
    expect(code).toBe(1)
    expect(stdout).toMatch(/\/api\/v1\/admin\/truth\/summary\s+401 .*FAIL unauthorized/)
    expect(stdout).toMatch(/^1 passed, 3 failed$/m)
  })

  it('fails when nothing listens, and rejects a bad URL with exit 2', async () => {
    const down = await run('smoke.py', ['--url', 'http://127.0.0.1:9', '--timeout', '2'])
    expect(down.code).toBe(1)
    expect(down.stdout).toMatch(/FAIL no answer/)
    const bad = await run('smoke.py', ['--url', 'ftp://x'])
    expect(bad.code).toBe(2)
  })

  it.skipIf(!hasRequests)('client_example.py talks to the caller API (needs the requests package)', async (ctx) => {
    const routes = new Set(app.routeTable.map((r) => `${r.method} ${r.url}`))
    const needed = ['GET /api/v1/ops', 'POST /api/v1/digest', 'POST /api/v1/sat', 'POST /api/v1/chat']
    const missing = needed.filter((r) => !routes.has(r))
    if (missing.length > 0) ctx.skip(`${missing.join(', ')} not registered`)
    const { code, stdout, stderr } = await run('client_example.py', ['--url', url, '--token', ADMIN_TOKEN])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain("sha256('abc') = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(stdout).toMatch(/SAT status: SAT model: \[-1, 2\] verified: True/)
    expect(stdout).toContain('chat refused as documented: token_completion_unavailable')
  })
})
