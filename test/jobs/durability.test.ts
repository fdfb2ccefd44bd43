// SIGKILL durability of jobs with the compiled server: every acknowledged (202) job ends in a final state after the
// restarts, none is lost, none reaches a final state twice, and a job interrupted twice ends failed with that reason.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { freePort, requireCompiledServer, startServer, stopServer, waitForHealth, type ServerProcess } from '../process.js'

/** Pigeon hole with n holes: UNSAT, a search of tens to hundreds of milliseconds for n = 7..8. */
function pigeonHole(holes: number, tag: number): string {
  const v = (p: number, h: number) => p * holes + h + 1
  const clauses: string[] = []
  for (let p = 0; p <= holes; p++) clauses.push([...Array(holes).keys()].map((h) => v(p, h)).join(' ') + ' 0')
  for (let h = 0; h < holes; h++) for (let a = 0; a <= holes; a++) for (let b = a + 1; b <= holes; b++) clauses.push(`-${v(a, h)} -${v(b, h)} 0`)
  return `c job ${tag}\np cnf ${(holes + 1) * holes} ${clauses.length}\n${clauses.join('\n')}\n`
}

const dataDir = mkdtempSync(join(tmpdir(), 'ncm-jobs-kill-'))
let server: ServerProcess | null = null
afterAll(async () => {
  if (server) await stopServer(server)
  rmSync(dataDir, { recursive: true, force: true })
})

async function start(port: number): Promise<string> {
  server = startServer({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_PER_MIN: '0', MILL_QUEUE: '1000',
    // A loaded machine's event-loop delay must not shed the submissions this test counts on.
    MAX_EVENT_LOOP_DELAY_MS: '60000' }, { compiled: true })
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(`${base}/health`, { server, timeoutMs: 60_000 })
  return base
}

async function job(base: string, id: string): Promise<any> {
  const res = await request(`${base}/api/v1/jobs/${id}`)
  return ((await res.body.json()) as any).data
}

describe('jobs survive SIGKILL', () => {
  it('every acknowledged job ends final after restarts; none lost; interrupted twice → failed', async () => {
    requireCompiledServer()
    const port = await freePort()
    let base = await start(port)
    const acknowledged: string[] = []
    for (let i = 0; i < 24; i++) {
      const res = await request(`${base}/api/v1/sat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', prefer: 'respond-async' },
        body: JSON.stringify({ dimacs: pigeonHole(i % 3 === 0 ? 8 : 7, i), want_model: false, timeout_ms: 30_000 }),
      })
      const body = (await res.body.json()) as any
      if (res.statusCode === 202) acknowledged.push(body.data.id)
    }
    expect(acknowledged.length).toBe(24)
    // Kill once some work has finished and some is running or queued.
    for (let tries = 0; tries < 400; tries++) {
      const states = await Promise.all(acknowledged.slice(0, 3).map((id) => job(base, id).then((j) => j.state)))
      if (states.includes('succeeded') || states.includes('running')) break
      await new Promise((r) => setTimeout(r, 25))
    }
    await stopServer(server!, 'SIGKILL')

    // Second life: killed again as soon as it runs something, so a re-run job is interrupted a second time.
    base = await start(port)
    const running = async () => (await Promise.all(acknowledged.map((id) => job(base, id)))).filter((j) => j.state === 'running')
    let secondInterrupted: string[] = []
    for (let tries = 0; tries < 400 && secondInterrupted.length === 0; tries++) {
      secondInterrupted = (await running()).filter((j) => j.attempts === 2).map((j) => j.id)
      if (!secondInterrupted.length) await new Promise((r) => setTimeout(r, 20))
    }
    await stopServer(server!, 'SIGKILL')

    base = await start(port)
    const finals = new Map<string, any>()
    for (let tries = 0; tries < 3000 && finals.size < acknowledged.length; tries++) {
      for (const id of acknowledged) {
        if (finals.has(id)) continue
        const j = await job(base, id)
        expect(j, `job ${id} was lost`).toBeTruthy()
        if (['succeeded', 'failed', 'cancelled'].includes(j.state)) finals.set(id, j)
      }
      if (finals.size < acknowledged.length) await new Promise((r) => setTimeout(r, 50))
    }
    expect(finals.size).toBe(acknowledged.length)
    for (const j of finals.values()) {
      expect(j.attempts).toBeLessThanOrEqual(2)
      if (j.state === 'failed') expect(j.refuse.reason).toMatch(/interrupted by a restart/)
      else expect(j.state).toBe('succeeded')
    }
    for (const id of secondInterrupted) expect(finals.get(id).state).toBe('failed')
    // The answers are there, each once: the list holds every job exactly once.
    const listed = ((await (await request(`${base}/api/v1/jobs?limit=500`)).body.json()) as any).data.jobs.map((j: any) => j.id)
    expect(new Set(listed).size).toBe(listed.length)
    for (const id of acknowledged) expect(listed).toContain(id)
    const succeeded = [...finals.values()].find((j) => j.state === 'succeeded')
    if (succeeded) {
      const answer = ((await (await request(`${base}${succeeded.result_url}`)).body.json()) as any).data
      expect(answer.status).toBe('UNSAT')
    }
    console.log(`SIGKILL ×2: ${acknowledged.length} acknowledged; ${[...finals.values()].filter((j) => j.state === 'succeeded').length} succeeded, ` +
      `${[...finals.values()].filter((j) => j.state === 'failed').length} failed after a second interruption (${secondInterrupted.length} seen running on their second run at the kill)`)
  }, 240_000)
})
