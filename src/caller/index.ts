// The caller plugin (/api/v1): one route per registry operation, the envelope hook, the refusal error handler.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { Refusal, type RefusalCode } from '../http/refusal.js'
import { baseUrlOf } from '../http/base-url.js'
import { negotiate } from '../http/negotiate.js'
import { wrongMethod } from '../plugins/route-table.js'
import { shortUrl } from '../http/redact.js'
import { CALLER_PREFIX, envelope, okEnvelope, refusalEnvelope } from '../http/envelope.js'
import { createCallerErrorHandler } from './errors.js'
import { acceptTextBodies } from './text-body.js'
import { admitBeforeInput, jobInput, runParsed, runHandler } from './gate.js'
import { INTERNAL_PRINCIPAL, POLICY } from '../access/policy.js'
import jobRoutes from '../jobs/routes.js'
import { submitOrWait } from '../jobs/submit.js'
import { inputForPath, jobBudgetNote, JUDGE_BY_PATH } from '../jobs/budget.js'
import { jobViewSchema } from '../jobs/types.js'
import { answerWriter, prefersAsync } from '../jobs/view.js'
import { JsonBytes, RenderedBytes } from '../json/bytes.js'
import { actionOf, operationContext, type AnyOperation, type OperationContext, type RequestPart } from './operation.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The registry name of the operation a route serves (logs and metrics). */
    operation?: string
  }
}

/** The config, clock, registry, caller counters and authenticator come from the host's decorators. */
export interface CallerPluginOptions {
  /** Plugins that live under /api/v1 and share its envelope and error handler (e.g. the admin JSON routes). */
  children?: Array<{ plugin: FastifyPluginAsync<any>; prefix: string; options?: Record<string, unknown> }>
}

export default async function callerPlugin(app: FastifyInstance, opts: CallerPluginOptions) {
  const { config, registry, callerCounters: counters } = app

  // Hooks here are synchronous callbacks: they run on every caller request, and async hooks cost a promise each.
  // The principal was identified by the host's access plugin (src/plugins/access.ts).
  app.addHook('onRequest', (_req, _reply, done) => {
    counters.requests++
    done()
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

  const contextFor = (who: RequestPart) => operationContext(app, who)
  const contextOf = (req: FastifyRequest): OperationContext =>
    contextFor({ credential: req.credential, principal: req.principal, requestId: req.id, log: req.log, baseUrl: baseUrlOf(req, config), holdAnswer: (bytes) => req.holdAnswer(bytes) })

  // Heavy operations run as jobs: submitted by their route, re-run from the stored input after a restart. The answer
  // is stored as the route would send it (its response schema applied), so …/jobs/{id}/result equals the sync answer.
  for (const op of registry.operations) {
    if (!op.heavy) continue
    const write = answerWriter(op.output)
    app.jobs.define(op.name, async (input, run) =>
      // The submission was authorized; the run acts for the host.
      // A run has no response to hold memory for: its answer is stored as bytes, and each door reading it reserves.
      write(await runHandler(op, input, contextFor({ credential: null, principal: INTERNAL_PRINCIPAL, requestId: run.jobId, log: app.log.child({ job: run.jobId }), baseUrl: baseUrlOf(null, config), holdAnswer: () => undefined }))),
      // Identical submissions share one job where nothing measured is in the answer. An operation that runs from its
      // input's bytes is handed a large input as those bytes (gate.ts runHandler).
      { shared: !op.provenance.includes('measured'), storedBytes: op.fromStored !== undefined })
  }

  acceptTextBodies(app, (name) => registry.byName(name))
  for (const op of registry.operations) routeOperation(app, op, config, contextOf)

  await app.register(jobRoutes, { prefix: '/jobs', framing: 'caller' })
  for (const child of opts.children ?? []) {
    await app.register(child.plugin, { prefix: child.prefix, ...(child.options ?? {}) })
  }
}

const JOB_NOTE = ' Runs as a job: with `Prefer: respond-async` the answer is 202 with the job (Location: /api/v1/jobs/{id}); ' +
  'without it the call waits for the job and answers as usual. An Idempotency-Key returns the same job.'

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
    config: {
      operation: op.name,
      // The door: the operation's action is decided before the body is read (src/plugins/access.ts); one its input
      // calls for (a pin write) by the gate, before the input schema.
      access: actionOf(op),
      ...(op.largeAnswer ? { largeAnswer: true } : {}),
      examples: op.examples,
      refusals: refusalsOf(op),
    },
    ...(op.heavy ? JUDGE_BY_PATH : {}),
    schema: {
      operationId: op.name,
      summary: CALLER_PREFIX + (op.path === '/' ? '/' : op.path),
      description: `${op.caption}. ${op.summary}` + (op.heavy ? JOB_NOTE + jobBudgetNote(op.input, config.jobMaxMs) : ''),
      tags: [op.lobe],
      ...(op.method === 'GET' ? { querystring: op.input } : { body: op.input }),
      response: {
        200: okEnvelope(op.output),
        ...(op.heavy ? { 202: okEnvelope(jobViewSchema) } : {}),
        '4xx': refusalEnvelope,
        '5xx': refusalEnvelope,
      },

    },
    // An operation refused by its nature refuses before the body is even read: invalid JSON, an empty body or a
    // foreign content type all get the same 501.
    ...(op.refuses
      ? {
          onRequest: (_req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => done(op.refuses!().forOp(op.name)),
        }
      : {}),
    // Nature and credential come before the input schema (SPEC §2.6); validation runs after this hook.
    ...(op.inputAction
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
      const data = op.heavy
        ? await submitHeavy(app, op, inputForPath(req, op.input, config.jobMaxMs), req, reply, contextOf(req))
        : await runParsed(op, op.method === 'GET' ? req.query : req.body, contextOf(req))
      if (reply.statusCode === 202) return data
      if (op.render && !wantsJson(req, op.render)) {
        reply.type(op.render.contentType)
        // An answer that carries its rendering as bytes (a pin's stored text) sends them as they are, their length said.
        if (data instanceof RenderedBytes) return reply.header('content-length', data.renderedLength).send(data.renderedPayload())
        return reply.send(op.render.body(data instanceof JsonBytes ? data.value() : data))
      }
      return data
    },
  })
}

/** What the gate may refuse this operation with beyond what its route's shape shows, and what its handler declares. */
function refusalsOf(op: AnyOperation): RefusalCode[] {
  const codes = new Set<RefusalCode>(op.refusals ?? [])
  if (op.refuses) codes.add(op.refuses().code)
  // An operation whose door may need a credential (a scope, heavy work, the admin), or whose input may.
  if (op.inputAction || POLICY[actionOf(op)].need !== 'anyone') codes.add('forbidden')
  if (op.checkLimits) codes.add('over_limit')
  return [...codes]
}

/** Refuse first (limits, admission), then the job: 202 with its resource, or its answer once it is final. */
async function submitHeavy(app: FastifyInstance, op: AnyOperation, body: unknown, req: FastifyRequest, reply: FastifyReply, ctx: OperationContext) {
  const input = await jobInput(op, body, ctx, prefersAsync(req) ? app.config.jobMaxMs : null)
  const submitted = await submitOrWait(app.jobs, req, reply, { op: op.name, surface: 'caller', input })
  return submitted.async ? submitted.view : submitted.result
}

// JSON only when the Accept prefers it to the rendering: no Accept, */* or neither acceptable keeps the rendering.
function wantsJson(req: FastifyRequest, render: { contentType: string }): boolean {
  return negotiate(req.headers.accept, [render.contentType, 'application/json']) === 'application/json'
}
