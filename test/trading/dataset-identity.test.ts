// Issue #25 item 8 over a real socket: a dataset id is never reused after a delete (a client or job naming it never reads
// another's bars); a symbol of digits alone (which a request would read as an id) is refused; a CSV naming a column
// twice is refused, naming it; a dataset deleted under a running job ends that job with a clean refusal, never a
// foreign-key `internal`.
import { describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { pastStartReport } from '../hardening/monitor.js'

const host = listeningTestApp()
const HEADER = 'Date,Open,High,Low,Close,Volume'

function csvOf(days: number, start = 100): string {
  const rows = Array.from({ length: days }, (_, i) => {
    const date = new Date(Date.UTC(2023, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
    const close = start + Math.sin(i / 5) * 5 + i * 0.1
    return `${date},${close},${close + 1},${close - 1},${close + 0.5},1000`
  })
  return `${HEADER}\n${rows.join('\n')}\n`
}

async function send(method: string, path: string, body?: unknown) {
  const res = await request(host.base + path, {
    method: method as 'GET', headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, json: text ? JSON.parse(text) : null }
}

const importCsv = (symbol: string, csv: string) => send('POST', '/api/v11/datasets', { symbol, timeframe: '1d', csv })

describe('dataset identity (item 8)', () => {
  it('never reuses the id of a deleted dataset', async () => {
    const first = await importCsv('IDA', csvOf(30))
    expect(first.status, JSON.stringify(first.json)).toBe(201)
    const id = first.json.dataset?.id ?? first.json.id
    expect((await send('DELETE', `/api/v11/datasets/${id}`)).status).toBe(200)
    const second = await importCsv('IDB', csvOf(30, 200))
    expect(second.status).toBe(201)
    expect(second.json.dataset?.id ?? second.json.id).toBeGreaterThan(id)
    expect((await send('GET', `/api/v11/datasets/${id}`)).status).toBe(404)
  })

  it('refuses a symbol of digits alone, which would read as an id', async () => {
    const res = await importCsv('19', csvOf(10))
    expect(res.status).toBe(400)
    expect(res.json.detail).toMatch(/all digits/)
    expect((await importCsv('S19', csvOf(10))).status).toBe(201)
  })

  it('refuses a CSV that names a column twice, naming it', async () => {
    const csv = 'Date,Open,High,Low,Close,Close,Volume\n2024-01-02,10,11,9,10.5,99,1000\n2024-01-03,10.5,11.2,10.1,11,98,1200\n'
    const res = await importCsv('DUPCOL', csv)
    expect(res.status).toBe(400)
    expect(res.json.detail).toMatch(/"close" more than once/)
    expect((await send('GET', '/api/v11/datasets/DUPCOL')).status).toBe(404)
  })

  it('a dataset deleted under its running jobs ends them with a clean refusal, never internal', async () => {
    // The start report's self-tests share the one mill thread: let them end before the heavy jobs take it.
    await pastStartReport(host.app)
    host.app.admission.override('live-bound')
    try {
      const imported = await importCsv('GONE', csvOf(400))
      const id = imported.json.dataset?.id ?? imported.json.id
      const jobs = []
      for (const seed of [1, 2, 3]) {
        const res = await request(`${host.base}/api/v11/trading/simulate`, {
          method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' },
          body: JSON.stringify({ dataset: id, strategy: 'sma_cross', params: { fast: 5, slow: 20 }, paths: 20_000, horizon: 252, seed }),
        })
        expect(res.statusCode).toBe(202)
        jobs.push(((await res.body.json()) as { id: string }).id)
      }
      const deleted = await send('DELETE', `/api/v11/datasets/${id}?cascade=true`)
      expect(deleted.status, JSON.stringify(deleted.json)).toBe(200)
      for (const jobId of jobs) {
        const { job } = await host.app.jobs.settled(jobId)
        expect(job.refuse?.code, JSON.stringify(job.refuse)).not.toBe('internal')
        if (job.state === 'failed') expect(['conflict', 'not_found']).toContain(job.refuse!.code)
      }
    } finally {
      host.app.admission.override(null)
    }
  }, 60_000)
})
