// The ncm binary against a real server spawned on a loopback port: readable output, raw envelopes, exit codes.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { REPO_ROOT } from '../src/version.js'
import { freePort, requireCompiledServer, startServer, stopServer, waitForHealth, type ServerProcess } from './process.js'
import { CLI_BIN } from './helper.js'
import { checkProof } from '../src/engines/proof-check/index.js'
import { parseDimacs } from '../src/engines/sat/dimacs.js'

// The compiled binary and server (`npm test` builds dist first): no TypeScript loader to start for each spawn.
let url = ''
let server: ServerProcess
const dir = mkdtempSync(join(tmpdir(), 'ncm-cli-'))

/** Runs the binary; the spawn's own deadline only keeps a hung child from holding the worker (spawnSync blocks it). */
function ncm(...args: string[]) {
  const res = spawnSync(process.execPath, [CLI_BIN, '--url', url, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 180_000 })
  return { code: res.status, stdout: res.stdout, stderr: res.stderr }
}

beforeAll(async () => {
  requireCompiledServer()
  const port = await freePort()
  url = `http://127.0.0.1:${port}`
  server = startServer({ PORT: String(port), DATABASE_PATH: ':memory:', RATE_LIMIT_PER_MIN: '0', MAX_EVENT_LOOP_DELAY_MS: '60000' }, { compiled: true })
  await waitForHealth(`${url}/api/v1/health`, { server, timeoutMs: 100_000 })
}, 120_000)
afterAll(async () => {
  await stopServer(server, 'SIGTERM')
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
  it('writes the proof of an UNSAT answer to a file with --proof-out, fetched from the url the answer names', () => {
    const file = join(dir, 'unsat.cnf')
    const dimacs = 'p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n'
    writeFileSync(file, dimacs)
    const proofFile = join(dir, 'unsat.lrat')
    const out = ncm('sat', file, '--proof', 'lrat', '--proof-out', proofFile)
    expect(out.code, out.stderr).toBe(0)
    const data = JSON.parse(out.stdout)
    expect(data).toMatchObject({ status: 'UNSAT', verified: true, proof: { format: 'lrat' } })
    const proof = readFileSync(proofFile)
    expect(proof.byteLength).toBe(data.proof.bytes)
    expect(checkProof('lrat', parseDimacs(dimacs).cnf, new Uint8Array(proof))).toMatchObject({ verdict: 'verified' })
    expect(out.stderr).toContain(`wrote ${data.proof.bytes} bytes to ${proofFile}`)
    const none = ncm('sat', file, '--proof-out', join(dir, 'none.lrat'))
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/--proof-out: this answer has nothing to write/)
  })
  it('exits 2 on a refusal and says why on stderr', () => {
    const out = ncm('chat')
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(/token_completion_unavailable/)
  })
  it('exits 1 when the server cannot be reached', () => {
    const res = spawnSync(process.execPath, [CLI_BIN, '--url', 'http://127.0.0.1:1', 'surface'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 180_000 })
    expect(res.status).toBe(1)
    expect(res.stderr).toMatch(/cannot reach/)
  })
  it('--human renders a list as a table, a backtest as its key figures, without colour off a terminal', () => {
    const list = ncm('--human', 'features')
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/^features \(\d+\)\n\s+feature\s+lobe\s+status\s+operations/)
    const backtest = ncm('--human', 'backtest', '--dataset', '1', '--strategy', 'sma_cross', '--params.fast', '10', '--params.slow', '20',
      '--cash', '10000', '--commission', '0.002')
    expect(backtest.code, backtest.stderr).toBe(0)
    expect(backtest.stdout).toMatch(/^strategy\s+sma_cross \(fast=10 slow=20\)$/m)
    expect(backtest.stdout).toMatch(/^Sharpe ratio\s+-?\d+\.\d\d$/m)
    expect(list.stdout + backtest.stdout).not.toContain('\x1b[')
    const refused = ncm('--human', 'kv', '--tokens', '-3')
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toMatch(/^ncm kv: refused invalid_input \(400\)\n/)
  })
  it('--json prints exactly what the server answered', async () => {
    const out = ncm('--json', 'captions')
    const res = await request(`${url}/api/v1/captions`, { headers: { accept: 'application/json' } })
    expect(JSON.parse(out.stdout)).toEqual(await res.body.json())
  })
  it('ncm help lists the commands by lobe', () => {
    const out = ncm('help')
    expect(out.code).toBe(0)
    for (const heading of ['discovery', 'logic', 'capacity', 'text', 'access', 'orchestration', 'runtime', 'trading']) {
      expect(out.stdout).toMatch(new RegExp(`^${heading}$`, 'm'))
    }
    expect(out.stdout).toMatch(/^logic\n {2}sat\s+Solve a DIMACS CNF/m)
  })
  it('ncm completion bash completes commands and each command\'s flags', () => {
    const script = ncm('completion', 'bash').stdout
    const complete = (words: string[]) => spawnSync('bash', ['-c',
      `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ncm; echo "\${COMPREPLY[*]}"`,
    ], { encoding: 'utf8' }).stdout.trim().split(' ')
    expect(complete(['ncm', 'ba'])).toEqual(['backtest'])
    expect(complete(['ncm', 'sat', '--d'])).toEqual(['--dimacs'])
    expect(complete(['ncm', '--url', 'http://x', 'jsons'])).toEqual(['jsonsat'])
    expect(complete(['ncm', '--columns', 'id,op', 'jsons'])).toEqual(['jsonsat'])
    expect(complete(['ncm', '--as'])).toEqual(['--async'])
    const zsh = ncm('completion', 'zsh').stdout
    expect(zsh).toMatch(/^#compdef ncm/)
    expect(zsh).toContain("'max-edge-signal:Walk-forward signal search scored out of sample'")
    // Where zsh is installed: the script parses, and sourcing it after compinit registers _ncm for ncm.
    if (spawnSync('sh', ['-c', 'command -v zsh']).status === 0) {
      const registered = spawnSync('zsh', ['-c', `autoload -Uz compinit && compinit -u 2>/dev/null; ${zsh}\necho \${_comps[ncm]}`], { encoding: 'utf8' })
      expect(registered.stdout.trim(), registered.stderr).toBe('_ncm')
    }
  })
  it('ncm --help lists every global flag and the environment variables', () => {
    const out = ncm('--help')
    expect(out.code).toBe(0)
    for (const flag of ['--url <url>', '--token <token>', '--json', '--human', '--async', '--sync', '--all', '--wide', '--columns <names>']) {
      expect(out.stdout).toMatch(new RegExp(`^  ${flag.replace(/[<>]/g, '\\$&')}\\s`, 'm'))
    }
    for (const variable of ['NCM_URL', 'NCM_TOKEN', 'NO_COLOR']) expect(out.stdout).toMatch(new RegExp(`^  ${variable}\\s`, 'm'))
  })
  it('generates help for an operation from the registry', () => {
    const out = ncm('help', 'sat')
    expect(out.stdout).toMatch(/POST \/api\/v1\/sat/)
    expect(out.stdout).toMatch(/--dimacs/)
  })
})

describe('ncm reads back what the server stored', () => {
  it('lists runs page by page or all at once, shows one run, and exits 2 on a bad cursor', () => {
    for (const strategy of ['buy_and_hold', 'sma_cross', 'rsi_reversion']) {
      const run = ncm('--json', 'backtest', '--dataset', 'SYN-DAILY', '--strategy', strategy)
      expect(run.code, run.stderr).toBe(0)
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
  }, 240_000) // a dozen spawns of the binary on a loaded machine

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
  }, 240_000)
})
