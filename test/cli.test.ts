// The ncm binary against a real server spawned on a loopback port: readable output, raw envelopes, exit codes.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { REPO_ROOT } from '../src/version.js'

const port = 21000 + Math.floor(Math.random() * 20000)
const url = `http://127.0.0.1:${port}`
const dir = mkdtempSync(join(tmpdir(), 'ncm-cli-'))
const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
  cwd: REPO_ROOT,
  env: { ...process.env, PORT: String(port), DATABASE_PATH: ':memory:', LOG_LEVEL: 'warn', MILL_THREADS: '1', RATE_LIMIT_PER_MIN: '0', MAX_EVENT_LOOP_DELAY_MS: '60000' },
  stdio: 'ignore',
})

function ncm(...args: string[]) {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', '--url', url, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 })
  return { code: res.status, stdout: res.stdout, stderr: res.stderr }
}

beforeAll(async () => {
  for (let i = 0; i < 600; i++) {
    try {
      const res = await request(`${url}/api/v1/health`)
      await res.body.dump()
      if (res.statusCode === 200) return
    } catch {
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw new Error('server did not start')
}, 60_000)
afterAll(() => {
  server.kill('SIGTERM')
  rmSync(dir, { recursive: true, force: true })
})

describe('ncm against a live server', () => {
  it('prints readable data and exits 0', () => {
    const out = ncm('surface')
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout).surface).toBe('marketing-caller')
  })
  it('--json prints the raw envelope', () => {
    const out = ncm('--json', 'lexicon')
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout).invented_metrics).toBe(false)
  })
  it('solves a CNF file given as a positional argument', () => {
    const file = join(dir, 'p.cnf')
    writeFileSync(file, 'p cnf 2 2\n1 2 0\n-1 0\n')
    const out = ncm('sat', file)
    expect(out.code).toBe(0)
    const data = JSON.parse(out.stdout)
    expect(data.status).toBe('SAT')
    expect(data.model).toEqual([-1, 2])
  })
  it('exits 2 on a refusal and says why on stderr', () => {
    const out = ncm('chat')
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(/token_completion_unavailable/)
  })
  it('exits 1 when the server cannot be reached', () => {
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', '--url', 'http://127.0.0.1:1', 'surface'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 })
    expect(res.status).toBe(1)
    expect(res.stderr).toMatch(/cannot reach/)
  })
  it('generates help for an operation from the registry', () => {
    const out = ncm('help', 'sat')
    expect(out.stdout).toMatch(/POST \/api\/v1\/sat/)
    expect(out.stdout).toMatch(/--dimacs/)
  })
})
