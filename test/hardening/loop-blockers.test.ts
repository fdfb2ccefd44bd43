// Issue #13 item 3, over a real socket with a health monitor: single requests whose cost grew with the input.
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'
import { listeningTestApp } from '../helper.js'
import { monitorHealth, postRaw } from './monitor.js'

const host = listeningTestApp()

describe('event-loop blockers are bounded', () => {
  it('a 1 MB unknown op name in /cli (its body limit) is refused not_found with closest names, the name cut in the reason', async () => {
    const body = JSON.stringify({ line: 'x'.repeat(1_000_000) + ' --flag 1' })
    const monitor = monitorHealth(host.base)
    const started = performance.now()
    const res = await postRaw(host.base, '/api/v1/cli', body)
    const elapsed = performance.now() - started
    const health = await monitor.stop()
    console.log(`1 MB /cli op name: answered in ${elapsed.toFixed(0)} ms; ${health.summary}`)
    expect(res.status).toBe(404)
    expect(res.body.refuse.code).toBe('not_found')
    expect(res.body.refuse.hints.closest).toHaveLength(3)
    expect(res.body.refuse.reason.length).toBeLessThan(200)
    expect(health.failures).toBe(0)
  })

  it('GET /api/v11/system/verify runs once per VERIFY_CACHE_MS whatever four looping clients ask', async () => {
    const monitor = monitorHealth(host.base)
    const answers: Array<{ cached: boolean; checked_at: string; ok: boolean }> = []
    const until = performance.now() + 1500
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        const res = await request(`${host.base}/api/v11/system/verify`)
        answers.push((await res.body.json()) as (typeof answers)[number])
      }
    }))
    const health = await monitor.stop()
    console.log(`verify ×${answers.length} from 4 clients: ${health.summary}`)
    expect(answers.length).toBeGreaterThan(4)
    expect(answers.every((a) => a.ok)).toBe(true)
    expect(answers.filter((a) => !a.cached)).toHaveLength(1)
    expect(new Set(answers.map((a) => a.checked_at)).size).toBe(1)
    expect(health.failures).toBe(0)
  })

  it('an 880k-row CSV import is refused over_limit by the parser row count in the mill, before any row is read (1.3 s on the loop before)', async () => {
    const rows = ['Date,Open,High,Low,Close,Volume']
    for (let i = 0; i < 880_000; i++) rows.push(`${946684800 + i * 60},1,1,1,1`)
    const monitor = monitorHealth(host.base)
    const res = await postRaw(host.base, '/api/v11/datasets?symbol=HUGE&timeframe=1m', rows.join('\n') + '\n', 'text/csv')
    const health = await monitor.stop()
    console.log(`880k-row CSV: ${health.summary}`)
    expect(res.status).toBe(422)
    expect(res.body.detail ?? res.body.title).toMatch(/CSV_MAX_ROWS|250000/)
    expect(health.failures).toBe(0)
    const fewer = ['Date,Open,High,Low,Close,Volume', ...Array.from({ length: 1000 }, (_, i) => `${946684800 + i * 60},1,2,0.5,1.5,1`)]
    const small = await postRaw(host.base, '/api/v11/datasets?symbol=SMALL&timeframe=1m', fewer.join('\n') + '\n', 'text/csv')
    expect(small.status, JSON.stringify(small.body)).toBe(201)
  })

  it('polling a job whose stored input is 12 MB reads its row without the input (each poll parsed it on the loop)', async () => {
    // PHP(12, 11) runs far longer than the test, padded to 12 MB with DIMACS comment lines.
    const dimacs = 'c pad\n'.repeat(2_000_000) + pigeonholeDimacs(12)
    const submitted = await request(`${host.base}/api/v1/sat`, {
      method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ dimacs, want_model: false, timeout_ms: 60_000 }),
    })
    expect(submitted.statusCode).toBe(202)
    const { id } = ((await submitted.body.json()) as { data: { id: string } }).data
    const monitor = monitorHealth(host.base)
    const states: string[] = []
    const until = performance.now() + 1500
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        const res = await request(`${host.base}/api/v1/jobs/${id}`)
        states.push(((await res.body.json()) as { data: { state: string } }).data.state)
      }
    }))
    const health = await monitor.stop()
    console.log(`${states.length} polls of a job with a 12 MB input from 4 clients: ${health.summary}`)
    expect(states.length).toBeGreaterThan(4)
    expect(states.every((s) => s === 'queued' || s === 'running')).toBe(true)
    expect(health.failures).toBe(0)
    await request(`${host.base}/api/v1/jobs/${id}`, { method: 'DELETE' }).then((res) => res.body.dump())
  })
})
