// The caller plugin (/api/v1): one route per registry operation, the envelope hook, the refusal error handler.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { Refusal } from '../refusal.js'
import { baseUrlOf } from '../base-url.js'
import { wrongMethod } from '../plugins/route-table.js'
import { shortUrl } from '../redact.js'
import type { Authenticator, Credential } from '../access/auth.js'
import type { CallerCounters } from './counters.js'
import { envelope, okEnvelope, refusalEnvelope } from './envelope.js'
import { createCallerErrorHandler } from './errors.js'
import { admitBeforeInput, checksBeforeInput, runParsed } from './gate.js'
import type { AnyOperation, OperationContext, Registry } from './operation.js'
import type { Clock } from '../clock.js'

declare module 'fastify' {
  interface FastifyRequest {
    credential: Credential | null
  }
  interface FastifyContextConfig {
    /** The registry name of the operation a route serves (logs and metrics). */
    operation?: string
  }
}

export interface CallerPluginOptions {
  config: Config
  clock: Clock
  registry: Registry
  counters: CallerCounters
  auth: Authenticator
  /** Plugins that live under /api/v1 and share its envelope and error handler (e.g. the admin JSON routes). */
  children?: Array<{ plugin: FastifyPluginAsync<any>; prefix: string; options?: Record<string, unknown> }>
}

export const CALLER_PREFIX = '/api/v1'

export default async function callerPlugin(app: FastifyInstance, opts: CallerPluginOptions) {
  const { config, clock, registry, counters, auth } = opts

  app.decorateRequest('credential', null)
  // Hooks here are synchronous callbacks: they run on every caller request, and async hooks cost a promise each.
  app.addHook('onRequest', (req, _reply, done) => {
    counters.requests++
    const authorization = req.headers.authorization
    if (!authorization) return done()
    try {
      req.credential = auth.identify(authorization, clock.now())
      done()
    } catch (err) {
      done(err as Error)
    }
  })
  // The one place an envelope is built. preSerialization does not run for strings (Markdown renderings).
  app.addHook('preSerialization', (_req, reply, payload, done) => {
    if (reply.statusCode < 400) counters.completed++
    done(null, envelope(payload, app.admission.state()))
  })
  app.setErrorHandler(createCallerErrorHandler(counters))
  app.setNotFoundHandler(async (req, reply) => {
    const wrong = wrongMethod(req, reply)
    if (wrong) throw wrong
    throw new Refusal('not_found', `no operation answers ${req.method} ${shortUrl(req.url.split('?')[0]!)}`, {
      hints: { index: `${CALLER_PREFIX}/ops`, help: `${CALLER_PREFIX}/help` },
    })
  })

  const contextOf = (req: FastifyRequest): OperationContext => ({
    config,
    store: app.store,
    mill: app.mill,
    admission: app.admission,
    clock,
    counters,
    host: app,
    registry,
    auth,
    credential: req.credential,
    requestId: req.id,
    baseUrl: baseUrlOf(req, config),
    log: req.log,
  })

  for (const op of registry.operations) routeOperation(app, op, config, contextOf)

  for (const child of opts.children ?? []) {
    await app.register(child.plugin, { prefix: child.prefix, ...(child.options ?? {}) })
  }
}

function routeOperation(
  app: FastifyInstance,
  op: AnyOperation,
  config: Config,
  contextOf: (req: FastifyRequest) => OperationContext,
) {
  app.route({
    method: op.method,
    url: op.path,
    bodyLimit: op.bodyLimit === 'large' ? config.largeBodyLimitBytes : config.bodyLimitBytes,
    config: { operation: op.name },
    schema: {
      operationId: op.name,
      summary: CALLER_PREFIX + (op.path === '/' ? '/' : op.path),
      description: `${op.caption}. ${op.summary}`,
      tags: [op.lobe],
      ...(op.method === 'GET' ? { querystring: op.input } : { body: op.input }),
      response: { 200: okEnvelope(op.output), '4xx': refusalEnvelope, '5xx': refusalEnvelope },
    },
    // An operation refused by its nature refuses before the body is even read: invalid JSON, an empty body or a
    // foreign content type all get the same 501.
    ...(op.refuses
      ? {
          onRequest: (_req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => done(op.refuses!().forOp(op.name)),
        }
      : {}),
    // Nature and credential come before the input schema (SPEC §2.6); validation runs after this hook.
    ...(checksBeforeInput(op)
      ? {
          preValidation: (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
            try {
              admitBeforeInput(op, op.method === 'GET' ? req.query : req.body, contextOf(req))
              done()
            } catch (err) {
              done(err as Error)
            }
          },
        }
      : {}),
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const input = op.method === 'GET' ? req.query : req.body
      const data = await runParsed(op, input, contextOf(req))
      if (op.render && !wantsJson(req)) {
        return reply.type(op.render.contentType).send(op.render.body(data))
      }
      return data
    },
  })
}

function wantsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? ''
  return /application\/json/i.test(accept)
}
