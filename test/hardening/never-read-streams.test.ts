// Issue #30 item 3, the attacker's first mole, against the server as a child process over real sockets: one anonymous
// client opens 150 event streams of a finished job with a large answer and never reads them. Before, each stream
// wrote the whole answer into its socket's buffer and gave its slot back at once: 250 such streams took the host's
// RSS from 579 MiB to 1.76 GB, kept after the sockets closed. Now a stream writes as its socket takes it, holds its
// slot and its answer's memory reservation until it closes, and is cut once its client has taken nothing for
// SLOW_CLIENT_MS. The bound checked is memory (the child's RSS from /proc), never time.
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { readEvents } from '../sse.js'
import { freePort, startServer, stopServer, waitForHealth, type ServerProcess } from '../process.js'

const MiB = 2 ** 20
// A backtest answer is capped now (10,000 points, 1,000 trades: ~0.6 MB), which the kernel's socket buffers mostly take
// whole; what is bounded is what the host itself holds.
const STREAMS = 150
let server: ServerProcess
let base = ''
let jobId = ''
let answerBytes = 0

/** The child's resident set, from /proc (Linux). */
const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024

const as = (address: string) => ({ 'x-forwarded-for': address })

beforeAll(async () => {
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  server = startServer({
    PORT: String(port), DATABASE_PATH: ':memory:', RATE_LIMIT_PER_MIN: '0', MAX_EVENT_LOOP_DELAY_MS: '60000',
    // Each test client is a forwarded address of its own (an anonymous principal each).
    TRUST_PROXY: 'true', SLOW_CLIENT_MS: '1000',
  })
  await waitForHealth(`${base}/api/v1/health`, { server, timeoutMs: 120_000 })
  // The seeded 100k-bar series with its curve and trades: the largest backtest answer (its caps).
  const submitted = await request(`${base}/api/v11/trading/backtest`, {
    method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async', ...as('10.0.0.1') },
    body: JSON.stringify({ dataset: SYNTHETIC_PRESETS.intraday100k.symbol, strategy: 'sma_cross', params: { fast: 2, slow: 5 }, include: ['equity', 'trades'] }),
  })
  const job = (await submitted.body.json()) as { id: string }
  expect(submitted.statusCode, JSON.stringify(job)).toBe(202)
  jobId = job.id
  for (;;) {
    const res = await request(`${base}/api/v11/jobs/${jobId}`, { headers: as('10.0.0.1') })
    const { state } = (await res.body.json()) as { state: string }
    if (state === 'succeeded') break
    expect(['queued', 'running']).toContain(state)
    await new Promise((r) => setTimeout(r, 100))
  }
  const result = await request(`${base}/api/v11/jobs/${jobId}/result`, { headers: as('10.0.0.1') })
  for await (const chunk of result.body) answerBytes += (chunk as Buffer).length
  expect(result.statusCode).toBe(200)
}, 180_000)
afterAll(async () => { if (server) await stopServer(server) })

/** Opens an event stream of the job from `address` on a raw socket that never reads. */
async function neverRead(address: string): Promise<Socket> {
  const { hostname, port } = new URL(base)
  const socket = connect(Number(port), hostname)
  await new Promise((r) => socket.once('connect', r))
  socket.pause()
  socket.write(`GET /api/v11/jobs/${jobId}/events HTTP/1.1\r\nhost: ${hostname}\r\nx-forwarded-for: ${address}\r\nconnection: close\r\n\r\n`)
  return socket
}

/**
 * Reads what a socket holds until the host closes it, or until nothing more comes for 500 ms once its answer began (a
 * stream the host ended whole leaves the connection open for the next request): the status of its answer.
 */
function drained(socket: Socket): Promise<number> {
  return new Promise((resolve) => {
    let head = ''
    let quiet: NodeJS.Timeout | undefined
    const done = () => {
      clearTimeout(quiet)
      socket.destroy()
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0))
    }
    socket.on('data', (chunk: Buffer) => {
      if (head.length < 64) head += chunk.toString('latin1')
      clearTimeout(quiet)
      quiet = setTimeout(done, 500)
    })
    socket.once('close', done)
    socket.resume()
  })
}

describe('event streams a client never reads', () => {
  it(`${STREAMS} never-read streams of a finished job with a large answer keep RSS within +300 MiB, and each is answered`, async () => {
    const pid = server.child.pid!
    const before = rssOf(pid)
    let peak = before
    const sampler = setInterval(() => { peak = Math.max(peak, rssOf(pid)) }, 20)
    const sockets: Socket[] = []
    for (let i = 0; i < STREAMS; i++) sockets.push(await neverRead('10.6.6.6'))
    // Past the deadline the host has cut every stream it opened; the sockets are held open by the client meanwhile.
    await new Promise((r) => setTimeout(r, 2500))
    clearInterval(sampler)
    const statuses = await Promise.all(sockets.map(drained))
    const tally: Record<number, number> = {}
    for (const status of statuses) tally[status] = (tally[status] ?? 0) + 1
    console.log(`${STREAMS} never-read streams of a ${(answerBytes / MiB).toFixed(1)} MiB answer: statuses ${JSON.stringify(tally)}; ` +
      `host RSS ${(before / MiB).toFixed(0)} → peak ${(peak / MiB).toFixed(0)} MiB`)
    expect(answerBytes).toBeGreaterThan(MiB / 2)
    // Streams opened (200) until the client's share, the rest refused: over its streams (422) or its memory (503).
    expect(Object.keys(tally).map(Number).every((s) => [200, 422, 503].includes(s))).toBe(true)
    expect(tally[200]).toBeGreaterThan(0)
    expect(peak - before).toBeLessThan(300 * MiB)
  }, 120_000)

  it('another client reads the same stream whole meanwhile and after', async () => {
    const hostile = await Promise.all(Array.from({ length: 8 }, () => neverRead('10.6.6.7')))
    const res = await request(`${base}/api/v11/jobs/${jobId}/events`, { headers: as('10.0.0.2') })
    expect(res.statusCode).toBe(200)
    const { events } = await readEvents(res.body)
    const final = events.at(-1)!
    expect(final).toMatchObject({ id: 'final', event: 'succeeded' })
    expect(final.data.result.trades.length).toBeGreaterThan(0)
    const statuses = await Promise.all(hostile.map(drained))
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0)
  }, 60_000)
})
