// Issue #30 item 3 over a real socket: a stored 250k-bar run's equity curve downloaded as CSV (~20 MB) goes out a page
// of the store at a time as the client takes it, never built whole on the loop (the attacker measured 368–402 ms of
// the loop for one download); a client that stops reading holds the download for SLOW_CLIENT_MS, then it is ended.
import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { listeningTestApp } from '../helper.js'
import { storeDataset } from './large-dataset.js'
import { besideHealth, pastStartReport } from './monitor.js'

const host = listeningTestApp({ env: { SLOW_CLIENT_MS: '1000' } })
const BARS = 250_000
const LONG = generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: BARS })
let runId = 0

describe('a stored run\'s equity curve as CSV', () => {
  beforeAll(async () => {
    await storeDataset(host.app, 'LONG', '15m', LONG)
    await pastStartReport(host.app)
    const res = await request(`${host.base}/api/v11/trading/backtest`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dataset: 'LONG', strategy: 'sma_cross', params: { fast: 2, slow: 5 }, equity_points: 100 }),
    })
    const answer = (await res.body.json()) as { run: { id: number } }
    expect(res.statusCode).toBe(200)
    runId = answer.run.id
  }, 120_000)

  it('streams every point, a store page at a time, health answering', async () => {
    const { value: download, health, stretch } = await besideHealth(host.base, `equity CSV of ${BARS} points`, async () => {
      const res = await request(`${host.base}/api/v11/runs/${runId}/equity`, { headers: { accept: 'text/csv' } })
      let bytes = 0
      let lines = 0
      let last = ''
      for await (const chunk of res.body) {
        const text = (chunk as Buffer).toString('latin1')
        bytes += chunk.length
        for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++
        last = (last + text).slice(-200)
      }
      return { status: res.statusCode, type: res.headers['content-type'], bytes, lines, last }
    })
    console.log(`equity CSV: ${(download.bytes / 2 ** 20).toFixed(1)} MiB, ${download.lines} lines; loop ${stretch.maxCpuMs.toFixed(1)} ms CPU at most`)
    expect(download.status).toBe(200)
    expect(download.type).toMatch(/^text\/csv/)
    expect(download.lines).toBe(BARS + 1)
    expect(download.last.trimEnd().split('\n').at(-1)!.split(',')[0]).toBe(String(BARS - 1))
    expect(health.failures).toBe(0)
  }, 120_000)

  it('a client that never reads the download is cut after SLOW_CLIENT_MS', async () => {
    const { hostname, port } = new URL(host.base)
    const socket = connect(Number(port), hostname)
    await new Promise((r) => socket.once('connect', r))
    socket.pause() // not reading: the host's writes fill the socket and wait
    socket.write(`GET /api/v11/runs/${runId}/equity HTTP/1.1\r\nhost: ${hostname}\r\naccept: text/csv\r\n\r\n`)
    const before = host.app.memory.slowEnded()
    while (host.app.memory.slowEnded() === before) await new Promise((r) => setTimeout(r, 50))
    // Reading now finds what the kernel held, then the end: the host ended the download, the client never closed it.
    let bytes = 0
    socket.on('data', (chunk: Buffer) => { bytes += chunk.length })
    socket.resume()
    await new Promise<void>((r) => socket.once('close', () => r()))
    console.log(`never-read equity CSV: ended by the host after ${(bytes / 2 ** 20).toFixed(1)} MiB had left it`)
    expect(bytes).toBeGreaterThan(0)
    expect(bytes).toBeLessThan(19 * 2 ** 20)
  }, 60_000)
})
