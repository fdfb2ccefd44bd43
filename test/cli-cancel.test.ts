// Ctrl-C in `ncm --async`: the binary, spawned with pipes against a real socket, gets SIGINT while its job runs; it
// cancels the job, says so, exits 130, and the job reads `cancelled` over HTTP.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { pigeonholeDimacs } from '../src/engines/sat/pigeonhole.js'
import { REPO_ROOT } from '../src/version.js'
import { CLI_BIN, listeningTestApp } from './helper.js'

const host = listeningTestApp()
const dir = mkdtempSync(join(tmpdir(), 'ncm-cancel-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))


describe('ncm --async and Ctrl-C', () => {
  it('cancels the running job on SIGINT, exits 130, and the job ends cancelled', async () => {
    const file = join(dir, 'hole11.cnf')
    writeFileSync(file, pigeonholeDimacs(11))
    // The compiled binary (`npm test` builds dist first): no TypeScript loader to start.
    const child = spawn(process.execPath, [CLI_BIN, '--url', host.base, '--async', 'sat', '--dimacs', `@${file}`, '--timeout-ms', '120000'],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    // Stderr is a pipe: plain progress lines; the first `running` line means the solver has started.
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
        if (/ sat running /.test(stderr)) resolve()
      })
      void exited.then(() => reject(new Error(`ncm exited before its job ran: ${stderr}`)))
    })
    child.kill('SIGINT')
    expect(await exited).toBe(130)
    const id = /cancelling job ([0-9a-f-]{36})/.exec(stderr)?.[1]
    expect(id, stderr).toBeDefined()
    expect(stderr).toContain(`ncm: job ${id} cancelled`)
    const job = await host.app.inject({ url: `/api/v1/jobs/${id}` })
    expect(JSON.parse(job.body).data.state).toBe('cancelled')
  }, 60_000)
})
