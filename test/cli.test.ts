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

describe('ncm reads back what the server stored', () => {
  it('lists runs page by page or all at once, shows one run, and exits 2 on a bad cursor', async () => {
    for (const strategy of ['buy_and_hold', 'sma_cross', 'rsi_reversion']) {
      const res = await request(`${url}/api/v11/trading/backtest`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset: 'SYN-DAILY', strategy }),
      })
      expect(res.statusCode).toBe(200)
      await res.body.dump()
    }
    const first = ncm('runs', '--limit', '1', '--kind', 'backtest')
    expect(first.code, first.stderr).toBe(0)
    const page = JSON.parse(first.stdout)
    expect(page.runs).toHaveLength(1)
    expect(page.next_cursor).toEqual(expect.any(String))
    const all = JSON.parse(ncm('runs', '--all', '--limit', '1', '--dataset', 'SYN-DAILY').stdout)
    expect(all.runs.length).toBeGreaterThanOrEqual(3)
    expect(all.pages).toBe(all.runs.length) // one run per page
    expect(all.next_cursor).toBeNull()
    const one = ncm('runs', String(page.runs[0].id))
    expect(one.code, one.stderr).toBe(0)
    expect(JSON.parse(one.stdout)).toMatchObject({ id: page.runs[0].id, kind: 'backtest', inputs: { dataset: 'SYN-DAILY' } })
    const bad = ncm('runs', '--cursor', 'nonsense')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/cursor/)
  })

  it('shows a dataset with a page of its bars, the ledger lists, and pins', () => {
    const dataset = JSON.parse(ncm('datasets', 'SYN-DAILY', '--limit', '3').stdout)
    expect(dataset.dataset.symbol).toBe('SYN-DAILY')
    expect(dataset.bars).toHaveLength(3)
    expect(JSON.parse(ncm('ledger', 'fills').stdout)).toMatchObject({ fills: expect.any(Array), next_cursor: null })
    expect(ncm('ledger', 'nonsense').code).toBe(2)
    expect(ncm('pin', '--content', 'read me back').code).toBe(0)
    const pins = JSON.parse(ncm('pins').stdout)
    expect(pins.pins.length).toBeGreaterThanOrEqual(1)
    expect(JSON.parse(ncm('pins', pins.pins[0].digest).stdout)).toMatchObject({ verified: true })
  })
})
