// The ncm binary on a real terminal: tmux gives a 120×40 pane running bash; the lists print on it as a person sees
// them (on a TTY, so readable output), each line within 120 columns and none wrapped; completion is sourced as the
// README says and completes `ncm …` and `npx ncm …` with Tab; a short job id from `ncm jobs` works in `ncm job`.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../src/version.js'
import { requireCompiledServer } from './process.js'
import { CLI_BIN, json, listeningTestApp } from './helper.js'

const hasTmux = spawnSync('sh', ['-c', 'command -v tmux']).status === 0
const WIDTH = 120

describe.skipIf(!hasTmux)('ncm on a 120-column terminal (tmux)', () => {
  const host = listeningTestApp()
  const dir = mkdtempSync(join(tmpdir(), 'ncm-tmux-'))
  const socket = join(dir, 'tmux.sock')
  const tmux = (...args: string[]) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' })
  let marks = 0

  /** Types a line into the pane and waits for it to finish; answers what it printed (wrapped lines joined back). */
  async function run(line: string): Promise<string[]> {
    const mark = `__done_${++marks}__`
    tmux('send-keys', '-t', 'ncm', 'clear; tmux -S "$SOCK" clear-history', 'Enter')
    tmux('send-keys', '-t', 'ncm', `${line}; echo ${mark}`, 'Enter')
    let screen: string[] = []
    await expect.poll(() => {
      screen = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'ncm').split('\n')
      return screen.includes(mark)
    }, { timeout: 60_000, interval: 100 }).toBe(true)
    // The typed line may show twice (typed ahead of the prompt, then redrawn): the output follows its last showing.
    const end = screen.indexOf(mark)
    const start = screen.slice(0, end).findLastIndex((l) => l.endsWith(`echo ${mark}`))
    return screen.slice(start + 1, end)
  }

  /** Types a partial line and presses Tab; answers the pane once it shows what was expected. */
  async function tab(partial: string, expected: RegExp): Promise<string> {
    tmux('send-keys', '-t', 'ncm', 'C-u', partial, 'Tab')
    let text = ''
    try {
      await expect.poll(() => {
        text = tmux('capture-pane', '-p', '-J', '-t', 'ncm')
        return expected.test(text)
      }, { timeout: 30_000, interval: 100 }).toBe(true)
    } catch {
      throw new Error(`Tab after "${partial}" did not show ${expected}; the pane:\n${text}`)
    }
    tmux('send-keys', '-t', 'ncm', 'C-u')
    return text
  }

  beforeAll(async () => {
    // Something to list: finished jobs (one a walk-forward search, which also stores a run) and backtest runs.
    const post = (url: string, payload: unknown, prefer = false) =>
      host.app.inject({ method: 'POST', url, payload: payload as object, headers: prefer ? { prefer: 'respond-async' } : {} })
    for (let i = 0; i < 3; i++) await post('/api/v1/sat', { dimacs: `p cnf 2 1\n1 ${i % 2 ? '' : '-'}2 0\n` }, true)
    for (const strategy of ['sma_cross', 'buy_and_hold']) await post('/api/v11/trading/backtest', { dataset: 'SYN-DAILY', strategy })
    expect((await post('/api/v11/trading/max-edge-signal', { dataset: 'SYN-DAILY' })).statusCode).toBe(200)
    // `ncm` on the PATH, as an installed or linked binary is; `npx` only needs to exist for completion.
    writeFileSync(join(dir, 'ncm'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_BIN}" "$@"\n`)
    chmodSync(join(dir, 'ncm'), 0o755)
    // No history file: the shell would write one into `dir` as tmux ends it, racing the directory's removal.
    const env = `PATH=${dir}:${process.env.PATH} NCM_URL=${host.base} NO_COLOR=1 SOCK=${socket} PS1='$ ' TERM=xterm-256color HISTFILE=/dev/null`
    requireCompiledServer() // the binary runs from dist/ too: `npm test` builds it first
    tmux('new-session', '-d', '-s', 'ncm', '-x', String(WIDTH), '-y', '40', '-c', dir, `env -i HOME=${dir} ${env} bash --norc --noprofile`)
  })

  afterAll(() => {
    spawnSync('tmux', ['-S', socket, 'kill-server'])
    // tmux may still be writing its socket directory as it goes: retried as Node retries a busy directory.
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 200 })
  })

  it('ncm jobs, runs and datasets print the columns people scan, every line within 120 columns', async () => {
    const expectations: Array<[string, RegExp]> = [
      ['ncm jobs', /^id\s+op\s+state\s+progress\s+took\s+age$/],
      ['ncm runs', /^id\s+kind\s+dataset\s+strategy\s+params\s+figures\s+age$/],
      ['ncm datasets', /^id\s+symbol\s+timeframe\s+rows\s+from\s+to\s+source\s+age$/],
    ]
    for (const [command, header] of expectations) {
      const lines = await run(command)
      expect(lines[0], `${command}:\n${lines.join('\n')}`).toMatch(header)
      expect(lines.length).toBeGreaterThan(2)
      for (const line of lines) expect(line.length, `${command}: ${line}`).toBeLessThanOrEqual(WIDTH)
    }
    const jobs = await run('ncm jobs')
    expect(jobs.slice(1, -1).every((line) => /^[0-9a-f]{8} /.test(line))).toBe(true)
  })

  it('a walk-forward search prints a leaderboard, not every fold; --all prints them', async () => {
    const summary = await run('ncm max-edge-signal --dataset SYN-DAILY --sync')
    expect(summary.join('\n')).toMatch(/^leaderboard \(top 10 of \d+\)$/m)
    expect(summary.length).toBeLessThan(40)
    for (const line of summary) expect(line.length).toBeLessThanOrEqual(WIDTH)
    const whole = await run('ncm max-edge-signal --dataset SYN-DAILY --sync --all')
    expect(whole.join('\n')).toMatch(/^folds \(\d+\)$/m)
  })

  it('a short id from ncm jobs reads and cancels the job', async () => {
    const page = json(await host.app.inject('/api/v1/jobs?limit=1')).data.jobs[0]
    const short = page.id.slice(0, 8)
    const one = await run(`ncm job ${short}`)
    expect(one.join('\n')).toMatch(new RegExp(`^id\\s+${page.id}$`, 'm'))
    const cancelled = await run(`ncm cancel ${short}; echo "exit $?"`)
    expect(cancelled).toContain('exit 0')
  })

  it('completion sourced as the README says completes ncm and npx ncm', async () => {
    await run('source <(ncm completion bash)')
    // A completed word is followed by a blank (kept or dropped by capture-pane).
    expect(await tab('ncm max-ed', /^\$ ncm max-edge-signal *$/m)).toBeTruthy()
    expect(await tab('npx ncm max-ed', /^\$ npx ncm max-edge-signal *$/m)).toBeTruthy()
    expect(await tab('npx ncm sat --dim', /^\$ npx ncm sat --dimacs *$/m)).toBeTruthy()
    expect(await tab('ncm --col', /^\$ ncm --columns *$/m)).toBeTruthy()
  })
})
