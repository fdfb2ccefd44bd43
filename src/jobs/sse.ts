// The Server-Sent Events stream of one job (GET …/jobs/{id}/events on both surfaces).
import type { ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isFinal, type JobEvent, type JobQueue, type JobRecord, type JobView } from './types.js'
import { jobView } from './view.js'
import { JsonBytes } from '../json/bytes.js'
import type { StreamSlots } from '../http/stream-slots.js'

/** What a stream asks of the host's memory admission (app.memory, plugins/memory-admission.ts). */
export interface StreamMemory {
  /** Reserves a large answer's bytes for owner, or throws `occupied` with Retry-After; answers the release. */
  reserveAnswer(owner: string): () => void
  /** Ends res when its client takes nothing for SLOW_CLIENT_MS while bytes wait to go out. */
  watch(res: ServerResponse): void
}

/**
 * A job's events as Server-Sent Events: progress, then one final event with the result or refusal. A reconnect after the
 * final event answers 204; comment lines every heartbeatMs keep idle proxies open. A client over its streams is refused
 * (over_limit, Retry-After) before the stream opens; one over its memory share (occupied) before an answer is written.
 * Every write respects the socket's backpressure: the answer goes out a part per drain, and the stream's slot and its
 * answer's reservation are held until the response closes, not handed back while megabytes still wait in its buffer.
 * A client that stops reading is cut after SLOW_CLIENT_MS (memory.watch).
 */
export async function streamJobEvents(
  jobs: JobQueue, slots: StreamSlots, memory: StreamMemory, heartbeatMs: number, req: FastifyRequest, reply: FastifyReply, job: JobRecord,
) {
  const lastId = req.headers['last-event-id']
  if (lastId === 'final' && isFinal(job.state)) return reply.code(204).send()
  const owner = req.principal.owner
  // Counted per principal (its owner key): an anonymous client by its address, a grant by its subject.
  const releaseSlot = await slots.take(owner)
  // A finished job's answer is reserved before the stream opens, so a refusal is still an HTTP answer (503, Retry-After).
  let releaseAnswer: (() => void) | null = null
  try {
    if (job.state === 'succeeded') releaseAnswer = memory.reserveAnswer(owner)
  } catch (err) {
    releaseSlot()
    throw err
  }
  reply.hijack()
  const raw = reply.raw
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx buffers proxied responses unless told not to; a buffered stream shows no progress.
    'x-accel-buffering': 'no',
  })
  let ended = false
  let finalSent = false
  // Given back once, at the response's close however the stream ends (sent and flushed, cut as slow, client gone).
  const closed = () => {
    ended = true
    releaseSlot()
    releaseAnswer?.()
    unsubscribe()
    clearInterval(heartbeat)
  }
  /** Writes and waits for the socket to take it when its buffer is full; false once the stream is over. */
  const send = async (chunk: string | Buffer): Promise<boolean> => {
    if (ended) return false
    if (raw.write(chunk)) return true
    await new Promise<void>((resolve) => {
      const go = () => {
        raw.off('drain', go)
        raw.off('close', go)
        resolve()
      }
      raw.on('drain', go)
      raw.on('close', go)
    })
    return !ended
  }
  // Progress and heartbeats are dropped while the socket is full: the next one carries the newer state.
  const write = (id: string | number, type: string, data: unknown) => {
    if (!ended && !raw.writableNeedDrain) raw.write(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`)
  }
  /**
   * The final event around a written answer: its bytes go out as they are, a chunk a write, never joined; JSON text
   * has no raw line breaks, so it stays one data line.
   */
  const writeAnswer = async (job: JobView, answer: JsonBytes) => {
    if (!(await send(`id: final\nevent: succeeded\ndata: {"job":${JSON.stringify(job)},"result":`))) return
    for (const chunk of answer.chunks) if (!(await send(chunk))) return
    await send('}\n\n')
  }
  const sendFinal = async (record: JobRecord, result?: unknown) => {
    if (finalSent || ended) return
    finalSent = true
    const view = jobView(record)
    if (record.state === 'succeeded') {
      if (!releaseAnswer) {
        try {
          releaseAnswer = memory.reserveAnswer(owner)
        } catch {
          // Over this client's share: the stream ends without its final event, and the reconnect (retry: 2000) is
          // answered 503 with Retry-After, or the answer once memory is free.
          raw.end()
          return
        }
      }
      const answer = result !== undefined ? result : await jobs.outcome(record.id).then((o) => (o.kind === 'succeeded' ? o.result : null))
      if (answer instanceof JsonBytes) await writeAnswer(view, answer)
      else await send(`id: final\nevent: succeeded\ndata: ${JSON.stringify({ job: view, result: answer })}\n\n`)
    } else {
      await send(`id: final\nevent: ${record.state}\ndata: ${JSON.stringify({ job: view, refuse: record.refuse })}\n\n`)
    }
    if (!ended) raw.end()
  }
  const onEvent = (event: JobEvent) => {
    if (isFinal(event.job.state)) void sendFinal(event.job, event.result)
    else write(event.seq, 'progress', { job: jobView(event.job) })
  }
  // Subscribe before reading the state, so nothing published in between is lost.
  const unsubscribe = jobs.subscribe(job.id, onEvent)
  const heartbeat = setInterval(() => {
    if (!raw.writableNeedDrain) raw.write(': keep-alive\n\n')
    // A final event lost between replicas (Redis reconnecting) must not hold the stream open: the row tells.
    jobs.get(job.id).then((row) => { if (row && isFinal(row.state)) return sendFinal(row) }).catch(() => undefined)
  }, heartbeatMs)
  raw.once('close', closed)
  if (raw.destroyed) closed()
  else memory.watch(raw)
  raw.write('retry: 2000\n\n')
  const now = (await jobs.get(job.id)) ?? job
  if (isFinal(now.state)) return sendFinal(now)
  write(0, 'progress', { job: jobView(now) })
}
