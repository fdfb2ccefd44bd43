// A job's event stream over a real socket, its queue a stand-in holding a 32 MB answer (larger than any socket buffer):
// the answer goes out as the client takes it, the stream's slot and memory reservation are held until the response
// closes (before, both came back as soon as the answer was queued in the socket's buffer), and a client that stops
// reading is cut after SLOW_CLIENT_MS.
import { connect, type Socket } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStreamSlots } from '../../src/http/stream-slots.js'
import { streamJobEvents } from '../../src/jobs/sse.js'
import type { JobQueue, JobRecord } from '../../src/jobs/types.js'
import { createMemoryAdmission } from '../../src/plugins/memory-admission.js'
import { JsonBytes } from '../../src/json/bytes.js'

const MiB = 2 ** 20
const PART = `"${'a'.repeat(MiB - 2)}"`
const answer = new JsonBytes(Array.from({ length: 32 }, (_, i) => Buffer.from(`${i ? ',' : '['}${PART}${i === 31 ? ']' : ''}`)))
const job: JobRecord = {
  id: 'j1', op: 'sat', surface: 'caller', owner: 'o', state: 'succeeded', inputDigest: 'd', idempotencyKey: null, attempts: 1,
  progress: { done: 1, total: 1 } as JobRecord['progress'], refuse: null, createdAt: 0, startedAt: 0, finishedAt: 0, purgedAt: null, sealedAt: null, effect: null,
}
const jobs = {
  get: async () => job,
  outcome: async () => ({ kind: 'succeeded', result: answer }),
  subscribe: () => () => {},
} as unknown as JobQueue

const slots = createStreamSlots(8)
const memory = createMemoryAdmission({ largeBytes: 16 * MiB, totalBytes: 64 * MiB, perClientBytes: 64 * MiB, slowClientMs: 1000 })
let app: FastifyInstance
let port = 0

beforeAll(async () => {
  app = Fastify()
  app.decorateRequest('principal', null as never)
  app.addHook('onRequest', async (req) => { (req as unknown as { principal: { owner: string } }).principal = { owner: 'client' } })
  app.get('/events', (req, reply) => streamJobEvents(jobs, slots, memory, 60_000, req, reply, job))
  await app.listen({ host: '127.0.0.1', port: 0 })
  port = (app.server.address() as { port: number }).port
})
afterAll(async () => {
  memory.close()
  await app.close()
})

async function open(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  await new Promise((r) => socket.once('connect', r))
  socket.write('GET /events HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n')
  return socket
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('an event stream carrying a 32 MB answer', () => {
  it('a client that reads gets the whole final event; slot and reservation come back at the close', async () => {
    const socket = await open()
    let bytes = 0
    let tail = ''
    // The stream ends its response and leaves the connection open (keep-alive): read until the chunked body's end.
    await new Promise<void>((resolve) => socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      tail = (tail + chunk.toString('latin1')).slice(-32)
      if (tail.endsWith('\r\n0\r\n\r\n')) resolve()
    }))
    expect(bytes).toBeGreaterThan(32 * MiB)
    expect(tail).toContain(']\r\n3\r\n}\n\n')
    while (slots.open() > 0 || memory.held() > 0) await wait(10)
    socket.destroy()
  })

  it('a client that never reads holds its slot and reservation while its answer waits, until SLOW_CLIENT_MS cuts it', async () => {
    const socket = await open()
    socket.pause()
    while (memory.held() === 0) await wait(10)
    const before = memory.slowEnded()
    // The answer is larger than the socket's buffers: the stream waits for the client, holding what it reserved.
    await wait(300)
    expect(slots.open()).toBe(1)
    expect(memory.held()).toBe(16 * MiB)
    while (memory.slowEnded() === before) await wait(20)
    socket.resume()
    await new Promise((r) => socket.once('close', r))
    expect(slots.open()).toBe(0)
    expect(memory.held()).toBe(0)
  })
})
