// Bounds how many large request bodies the host holds at once (issue #13 item 11): each 15 MB JSON body costs its
// text, its parsed copy and what the operation makes of it, so 150 at once took RSS to 2.5 GB. A body announced larger
// than BODY_LIMIT_BYTES (or of unknown length) takes one of LARGE_BODY_CONCURRENCY slots before it is read; with none
// free the request is refused `occupied` with Retry-After, and its body is never buffered.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Refusal } from '../refusal.js'

export interface LargeBodiesOptions {
  /** Bodies up to this many bytes are not counted (BODY_LIMIT_BYTES). */
  smallBodyBytes: number
  /** Large bodies held at once (LARGE_BODY_CONCURRENCY). */
  concurrency: number
}

export interface LargeBodies {
  /** Large bodies being read or answered now. */
  inFlight(): number
  /** Large bodies refused since start. */
  refused(): number
}

declare module 'fastify' {
  interface FastifyInstance {
    largeBodies: LargeBodies
  }
}

const HOLDS_SLOT = Symbol('ncm.largeBodySlot')
type SlotRequest = FastifyRequest & { [HOLDS_SLOT]?: boolean }

function isLarge(req: FastifyRequest, smallBodyBytes: number): boolean {
  const length = req.headers['content-length']
  if (length !== undefined) return Number(length) > smallBodyBytes
  return req.headers['transfer-encoding'] !== undefined // a streamed body of unknown length may be anything
}

export default fp(
  async function largeBodiesPlugin(app: FastifyInstance, opts: LargeBodiesOptions) {
    let inFlight = 0
    let refused = 0
    const release = (req: SlotRequest) => {
      if (!req[HOLDS_SLOT]) return
      req[HOLDS_SLOT] = false
      inFlight--
    }
    app.decorate('largeBodies', { inFlight: () => inFlight, refused: () => refused } satisfies LargeBodies)
    app.addHook('onRequest', (req: SlotRequest, _reply, done) => {
      if (!isLarge(req, opts.smallBodyBytes)) return done()
      if (inFlight >= opts.concurrency) {
        refused++
        return done(new Refusal('occupied', `${opts.concurrency} large bodies are being handled; retry shortly (LARGE_BODY_CONCURRENCY)`, {
          retryAfterS: 1,
          hints: { limit: 'LARGE_BODY_CONCURRENCY', value: opts.concurrency },
        }))
      }
      inFlight++
      req[HOLDS_SLOT] = true
      // A client gone mid-body gets no answer: its slot comes back when its request closes. Only slot holders listen
      // (an onRequestAbort hook would add a close listener to every request, small ones included).
      req.raw.once('close', () => release(req))
      done()
    })
    app.addHook('onResponse', (req: SlotRequest, _reply, done) => {
      release(req)
      done()
    })
  },
  { name: 'ncm-large-bodies', fastify: '5.x' },
)
