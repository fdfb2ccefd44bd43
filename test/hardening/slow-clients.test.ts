// Issue #30 item 3, the attacker's second and third moles over real sockets: sockets that never read held every
// large-answer slot forever (pin reads, /clauses and /run got no answer in 16 s), a body that trickles held its
// large-body slot with no deadline, and a CSV whose rows end in \r alone passed a row limit counted on \n (3.4× the
// cap imported). Here the host is configured with a 1 s SLOW_CLIENT_MS and room for two large answers in all, so one
// client that never reads can take everything; what is checked is that the host ends it, never how fast.
import { createHash } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { keepingBytes, monitorHealth, postRaw, reservationsReturned } from './monitor.js'

const MiB = 2 ** 20
const host = listeningTestApp({
  env: {
    // Bodies over 16 MiB are large; a large answer reserves 32 MiB (LARGE_BODY_LIMIT_BYTES): two fit in all.
    BODY_LIMIT_BYTES: String(16 * MiB), LARGE_BODY_LIMIT_BYTES: String(32 * MiB), SLOW_CLIENT_MS: '1000', TRUST_PROXY: 'true',
    CSV_MAX_ROWS: '1000', MEMORY_ADMISSION_BYTES: String(64 * MiB), MEMORY_PER_CLIENT_BYTES: String(64 * MiB),
  },
})

const content = `slow clients ${'s'.repeat(15_000_000)}`
const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`

async function rawSocket(): Promise<Socket> {
  const { hostname, port } = new URL(host.base)
  const socket = connect(Number(port), hostname)
  await new Promise((r) => socket.once('connect', r))
  return socket
}

/** Reads what the socket holds until the host closes it; answers all of it as text. */
function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => { if (chunks.length < 4) chunks.push(chunk) })
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.resume()
  })
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('a client that does not read, or sends slowly', () => {
  beforeAll(async () => {
    // Written in process: over a socket, 15 MB may take a busy machine longer than this host's 1 s SLOW_CLIENT_MS.
    const pinned = await host.app.inject({ method: 'POST', url: '/api/v1/pin', payload: { content } })
    expect(pinned.statusCode).toBe(200)
  }, 60_000)

  it('8 sockets that never read their 15 MB pin reads hold the memory another client needs only until SLOW_CLIENT_MS', async () => {
    const body = JSON.stringify({ digest })
    const hostile = await Promise.all(Array.from({ length: 8 }, async () => {
      const socket = await rawSocket()
      socket.pause()
      socket.write(`POST /api/v1/pin HTTP/1.1\r\nhost: 127.0.0.1\r\nx-forwarded-for: 10.6.6.6\r\nconnection: close\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
      return socket
    }))
    while (host.app.memory.held() < 64 * MiB) await wait(20)
    const slowBefore = host.app.memory.slowEnded()
    // The other client is refused while the reservations are held, with Retry-After, and answered once they are cut.
    const statuses: number[] = []
    for (;;) {
      const res = await keepingBytes(`${host.base}/api/v1/pin`, { body: { digest }, headers: { 'x-forwarded-for': '10.0.0.2' } })
      statuses.push(res.status)
      if (res.status === 200) {
        expect(res.json().data.content === content).toBe(true)
        break
      }
      expect(res.status).toBe(503)
      expect(res.headers['retry-after']).toBe('1')
      expect(res.json().refuse).toMatchObject({ code: 'occupied', hints: { limit: 'MEMORY_ADMISSION_BYTES' } })
      await wait(200)
    }
    console.log(`another client's pin read while 8 sockets never read theirs: ${statuses.join(' ')}`)
    expect(statuses[0]).toBe(503)
    // The other client is answered once a held answer was cut (the two admitted ones are cut at their own deadlines,
    // which a busy machine may set apart: one cut can free enough), and in the end both were.
    expect(host.app.memory.slowEnded()).toBeGreaterThanOrEqual(slowBefore + 1)
    // Read nothing until the host has cut both: reading earlier lets an answer not yet at its deadline finish.
    while (host.app.memory.slowEnded() < slowBefore + 2) await wait(20)
    const answers = await Promise.all(hostile.map(untilClosed))
    // Two were admitted and cut mid-answer; the rest were refused at once, each reservation over the client's share.
    expect(answers.filter((a) => a.startsWith('HTTP/1.1 200')).length).toBe(2)
    expect(answers.filter((a) => a.startsWith('HTTP/1.1 503')).length).toBe(6)
    expect(await reservationsReturned(host.app)).toBe(0)
  }, 60_000)

  it('a body that trickles is refused request_timeout (408) after SLOW_CLIENT_MS and its reservation given back', async () => {
    const monitor = monitorHealth(host.base)
    const socket = await rawSocket()
    socket.write(`POST /api/v1/digest HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 20000000\r\n\r\n{"content":"`)
    const answer = untilClosed(socket)
    while (host.app.memory.held() === 0) await wait(10)
    let sent = 0
    const drip = setInterval(() => { if (!socket.destroyed) socket.write('x'); sent++ }, 50)
    const text = await answer
    clearInterval(drip)
    const health = await monitor.stop()
    console.log(`a trickling body (${sent} bytes dripped): ${text.split('\r\n')[0]}; ${health.summary}`)
    expect(text).toMatch(/^HTTP\/1\.1 408/)
    expect(text.toLowerCase()).toContain('connection: close')
    const envelope = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
    expect(envelope.refuse).toMatchObject({ code: 'request_timeout', http_status: 408, hints: { limit: 'SLOW_CLIENT_MS', value: 1000 } })
    expect(await reservationsReturned(host.app)).toBe(0)
    expect(health.failures).toBe(0)
  }, 60_000)

  it('a CSV whose rows end in \\r alone is counted as the parser reads it: over CSV_MAX_ROWS refused, within it imported', async () => {
    const rows = (count: number) => ['Date,Open,High,Low,Close,Volume',
      ...Array.from({ length: count }, (_, i) => `${1_700_000_000 + i * 60},1,2,0.5,1.5,1`)].join('\r') + '\r'
    const over = await postRaw(host.base, '/api/v11/datasets?symbol=CRONLY&timeframe=1m', rows(3400), 'text/csv')
    expect(over.status).toBe(422)
    expect(over.body).toMatchObject({ code: 'over_limit' })
    expect(over.body.detail).toContain('CSV_MAX_ROWS')
    const within = await postRaw(host.base, '/api/v11/datasets?symbol=CRONLY&timeframe=1m', rows(1000), 'text/csv')
    expect(within.status, JSON.stringify(within.body)).toBe(201)
    expect(within.body.dataset.rows).toBe(1000)
  })
})
