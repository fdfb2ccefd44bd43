// The Server-Sent Events stream of one job (GET …/jobs/{id}/events on both surfaces).
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isFinal, type JobEvent, type JobQueue, type JobRecord, type JobView } from './types.js'
import type { StreamSlots } from './stream-slots.js'
import { jobView } from './view.js'
import { JsonBytes } from '../json/bytes.js'

/**
 * A job's events as Server-Sent Events: progress, then one final event with the result or refusal. A reconnect after the
 * final event answers 204; comment lines every heartbeatMs keep idle proxies open. A client over its streams is refused
 * (over_limit, Retry-After) before the stream opens.
 */
export async function streamJobEvents(
  jobs: JobQueue, slots: StreamSlots, heartbeatMs: number, req: FastifyRequest, reply: FastifyReply, job: JobRecord,
) {
  const lastId = req.headers['last-event-id']
  if (lastId === 'final' && isFinal(job.state)) return reply.code(204).send()
  // Counted per principal (its owner key): an anonymous client by its address, a grant by its subject.
  const release = await slots.take(req.principal.owner)
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
  raw.write('retry: 2000\n\n')
  let ended = false
  const write = (id: string | number, type: string, data: unknown) => {
    if (!ended) raw.write(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`)
  }
  /**
   * The final event around a written answer: its bytes go out as they are, a chunk a write, never joined; JSON text
   * has no raw line breaks, so it stays one data line.
   */
  const writeAnswer = (job: JobView, answer: JsonBytes) => {
    if (ended) return
    raw.write(`id: final\nevent: succeeded\ndata: {"job":${JSON.stringify(job)},"result":`)
    for (const chunk of answer.chunks) raw.write(chunk)
    raw.write('}\n\n')
  }
  const end = () => {
    if (ended) return
    ended = true
    release()
    unsubscribe()
    clearInterval(heartbeat)
    raw.end()
  }
  const sendFinal = async (record: JobRecord, result?: unknown) => {
    const view = jobView(record)
    if (record.state === 'succeeded') {
      const answer = result !== undefined ? result : await jobs.outcome(record.id).then((o) => (o.kind === 'succeeded' ? o.result : null))
      if (answer instanceof JsonBytes) writeAnswer(view, answer)
      else write('final', 'succeeded', { job: view, result: answer })
    } else {
      write('final', record.state, { job: view, refuse: record.refuse })
    }
    end()
  }
  const onEvent = (event: JobEvent) => {
    if (isFinal(event.job.state)) void sendFinal(event.job, event.result)
    else write(event.seq, 'progress', { job: jobView(event.job) })
  }
  // Subscribe before reading the state, so nothing published in between is lost.
  const unsubscribe = jobs.subscribe(job.id, onEvent)
  const heartbeat = setInterval(() => {
    raw.write(': keep-alive\n\n')
    // A final event lost between replicas (Redis reconnecting) must not hold the stream open: the row tells.
    jobs.get(job.id).then((row) => { if (row && isFinal(row.state)) return sendFinal(row) }).catch(() => undefined)
  }, heartbeatMs)
  req.raw.on('close', end)
  raw.on('close', end) // the response's own close: the slot is given back however the stream ends
  if (raw.destroyed) end()
  const now = (await jobs.get(job.id)) ?? job
  if (isFinal(now.state)) return sendFinal(now)
  write(0, 'progress', { job: jobView(now) })
}
