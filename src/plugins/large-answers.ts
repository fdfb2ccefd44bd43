// Bounds how many answers that grow with their input the host writes and sends at once (issue #13): a 90-byte read of
// a 15 MB pin holds ~50 MB until it is sent (the content, its JSON text, its bytes), so 50 such reads at once took RSS
// to 2.5 GB, and the few hundred one client may send would take the machine. A route marked `config.largeAnswer`
// takes one of LARGE_ANSWER_CONCURRENCY slots before its handler runs and keeps it until its response is closed;
// the next wait in line, in order, and past LARGE_ANSWER_QUEUE waiting a request is refused `occupied` (Retry-After).
// Other routes never touch it (the hook is added to marked routes only).
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Refusal } from '../refusal.js'

export interface LargeAnswersOptions {
  /** Answers written and sent at once (LARGE_ANSWER_CONCURRENCY). */
  concurrency: number
  /** Requests that may wait for a slot (LARGE_ANSWER_QUEUE). */
  queue: number
}

export interface LargeAnswers {
  inFlight(): number
  waiting(): number
  /** Refused since start: the line was full. */
  refused(): number
  /** Takes a slot outside a marked route (an MCP tool call): waits in line or is refused; answers the release. */
  acquire(): Promise<() => void>
}

declare module 'fastify' {
  interface FastifyInstance {
    largeAnswers: LargeAnswers
  }
  interface FastifyContextConfig {
    /** The route's answer grows with its input (a pin's content, a patch, a listing): it takes a large-answer slot. */
    largeAnswer?: boolean
  }
}

export default fp(
  async function largeAnswersPlugin(app: FastifyInstance, opts: LargeAnswersOptions) {
    let inFlight = 0
    let refused = 0
    const line: Array<() => void> = []
    const release = () => {
      const next = line.shift()
      if (next) next()
      else inFlight--
    }
    const acquire = async (): Promise<() => void> => {
      if (inFlight < opts.concurrency) {
        inFlight++
      } else {
        if (line.length >= opts.queue) {
          refused++
          throw new Refusal('occupied', `${opts.concurrency} large answers are being sent and ${line.length} wait; retry shortly (LARGE_ANSWER_CONCURRENCY, LARGE_ANSWER_QUEUE)`, {
            retryAfterS: 1,
            hints: { limit: 'LARGE_ANSWER_QUEUE', value: opts.queue },
          })
        }
        // The slot is handed over by the request that releases it (inFlight stays as it is).
        await new Promise<void>((resolve) => line.push(resolve))
      }
      let held = true
      return () => {
        if (!held) return
        held = false
        release()
      }
    }
    const take = async (_req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const done = await acquire()
      // The response's close comes however it ends: sent, failed, or the client gone (then at once, if already gone).
      reply.raw.once('close', done)
      if (reply.raw.destroyed) done()
    }
    app.decorate('largeAnswers', { inFlight: () => inFlight, waiting: () => line.length, refused: () => refused, acquire } satisfies LargeAnswers)
    app.addHook('onRoute', (route) => {
      if (!route.config?.largeAnswer) return
      const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
      route.preHandler = [...own, take]
    })
  },
  { name: 'ncm-large-answers', fastify: '5.x' },
)
