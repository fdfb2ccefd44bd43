// /help sells each line as runnable: run every line with the shell and curl, as a reader would, on an open host and
// on one with ADMIN_TOKEN set. A line that needs a credential says so in `needs` and sends it from a shell variable.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'

const ADMIN_TOKEN = 'help-lines-admin-token-0123456789'
const sh = promisify(execFile)

interface HelpLine { op: string; curl: string; needs: string | null }

async function helpLines(base: string): Promise<HelpLine[]> {
  const res = await fetch(`${base}/api/v1/help`)
  return ((await res.json()) as { data: { operations: HelpLine[] } }).data.operations
}

/**
 * Runs the line as written (curl's status code appended on a last line of its own), in a shell with no variables but
 * PATH, those the line names, and SHLVL, which any shell a reader types in has: a bash started from Node without it
 * took ~0.5 s to start on this machine (from a shell, 10 ms): this file took 140 s in CI, 9 s with it.
 */
async function runLine(line: HelpLine, env: Record<string, string>): Promise<{ ok: boolean; code: string | null }> {
  const command = `${line.curl} -w '\\n%{http_code}'`
  const { stdout } = await sh('bash', ['-c', command], { env: { PATH: process.env.PATH!, SHLVL: '1', ...env }, maxBuffer: 64 << 20 })
  const cut = stdout.lastIndexOf('\n')
  const status = Number(stdout.slice(cut + 1))
  if (status >= 200 && status < 300) return { ok: true, code: null }
  const body = JSON.parse(stdout.slice(0, cut)) as { refuse: { code: string } | null }
  return { ok: false, code: body.refuse?.code ?? String(status) }
}

/** Runs the lines in their order, as a reader would (/pin/text reads what /pin's line stored); the ones not 2xx. */
async function failures(lines: HelpLine[], env: Record<string, string>): Promise<string[]> {
  const failed: string[] = []
  for (const line of lines) {
    const answer = await runLine(line, env)
    if (!answer.ok) failed.push(`${line.op}: ${answer.code}`)
  }
  return failed
}

// Refused by nature (SPEC: no token completion here): its line shows the refusal.
const REFUSES_BY_NATURE = new Set(['chat'])

describe('/help curl lines', () => {
  const open = listeningTestApp()
  const guarded = listeningTestApp({ env: { ADMIN_TOKEN } })

  it('on an open host every line without `needs` answers as it is; /grant says it needs the admin token', async () => {
    const lines = await helpLines(open.base)
    const grant = lines.find((line) => line.op === 'grant')!
    expect(grant.needs).toMatch(/ADMIN_TOKEN/)
    expect(grant.curl).toContain('-H "authorization: Bearer $ADMIN_TOKEN"')
    expect(await failures(lines.filter((l) => l.needs === null && !REFUSES_BY_NATURE.has(l.op)), {})).toEqual([])
  }, 180_000) // ~40 lines, each a shell and a curl: over a minute on a busy machine

  it('on a host with ADMIN_TOKEN every line answers with the variables it names set', async () => {
    const lines = await helpLines(guarded.base)
    expect(lines.find((line) => line.op === 'pin')!.needs).toMatch(/pin:write.*\$NCM_TOKEN/)
    const env = { ADMIN_TOKEN, NCM_TOKEN: ADMIN_TOKEN }
    expect(await failures(lines.filter((l) => !REFUSES_BY_NATURE.has(l.op)), env)).toEqual([])
    // Without the variable the guarded line is refused, so the header is what makes it answer.
    expect(await runLine(lines.find((line) => line.op === 'grant')!, {})).toEqual({ ok: false, code: 'unauthorized' })
  }, 180_000)
})
