// The trading registry as Fastify routes: one encapsulated scope per group (prefix, not-found problem, v10's
// deprecation headers), one route per operation. Errors are RFC 9457 problems (the trading plugin's handler).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { z } from 'zod'
import { readBody } from '../plugins/json-body.js'
import { isBodyBytes } from '../body-parse/formats.js'
import { ownTurn } from '../sched/turns.js'
import { inputForPath, jobBudgetNote, JUDGE_BY_PATH } from '../jobs/budget.js'
import { submitOrWait } from '../jobs/submit.js'
import { jobViewSchema } from '../jobs/types.js'
import { baseUrlOf } from '../http/base-url.js'
import { negotiate } from '../http/negotiate.js'
import { POLICY, type Rule } from '../access/policy.js'
import { PlatformProblem, problemResponses } from '../http/problem.js'
import { Refusal } from '../http/refusal.js'
import type { TradingContext } from './context.js'
import { accessOf, Answer, TRADING_GROUPS, type TradingCall, type TradingGroup, type TradingOperation } from './operation.js'
import { tradingNotFound } from './routes/common.js'
import { SCOPE_REFUSALS } from './routes/examples.js'
import { v10Headers } from './v10.js'

export interface TradingRoutesOptions {
  context: TradingContext
  operations: readonly TradingOperation[]
}

/** Registers every group's routes; the root group shares the plugin's own scope. */
export default async function tradingRoutes(app: FastifyInstance, { context, operations }: TradingRoutesOptions) {
  // The principal and credential come from the host's access plugin, which asked the policy at the door.
  const callOf = (req: FastifyRequest): TradingCall => ({
    ...context,
    host: app,
    credential: req.credential,
    principal: req.principal,
    requestId: req.id,
    baseUrl: baseUrlOf(req, context.config),
    log: req.log,
  })
  for (const group of Object.keys(TRADING_GROUPS) as TradingGroup[]) {
    const ops = operations.filter((op) => op.group === group)
    await app.register(async (scope) => {
      setUpGroup(scope, group, ops)
      for (const op of ops) routeOperation(scope, op, context, callOf)
    }, { prefix: TRADING_GROUPS[group].prefix })
  }
}

function setUpGroup(app: FastifyInstance, group: TradingGroup, ops: readonly TradingOperation[]) {
  if (group === 'root') return
  app.setNotFoundHandler(tradingNotFound)
  if (group === 'v11') {
    // CSV bodies are kept as the bytes the host's body reader read (over 64 KiB in 1 MiB blocks), never decoded here:
    // they move to the mill, where the CSV parser decodes them and counts their rows against CSV_MAX_ROWS as it reads
    // them (engines/trading/csv.ts). A route that takes no text body reads one as text, to refuse it as it always has.
    const takesText = new Set(ops.filter((op) => op.textBody).map((op) => op.name))
    const csvFormat = { kind: 'bytes' } as const
    const refusedFormat = { kind: 'text' } as const
    app.addContentTypeParser('text/csv', (req: FastifyRequest, payload: Readable) =>
      readBody(app.bodyReader, req, payload, takesText.has(req.routeOptions.config.operation ?? '') ? csvFormat : refusedFormat))
    // What `curl -d` sends without a content type: refused with the way to send a file as it is.
    app.addContentTypeParser('application/x-www-form-urlencoded', async () => {
      throw new Refusal('invalid_input', 'a form-encoded body (what `curl -d` sends) is not taken here: send JSON, or a CSV ' +
        'import as text/csv with `curl --data-binary @file.csv -H "content-type: text/csv"` (-d strips line breaks)')
    })
  }
  if (group === 'v10') {
    app.addHook('onSend', async (req, reply) => {
      for (const [name, value] of Object.entries(v10Headers(req.routeOptions.url))) reply.header(name, value)
    })
  }
}

const JSON_TYPE = 'application/json'

function routeOperation(
  app: FastifyInstance,
  op: TradingOperation,
  context: TradingContext,
  callOf: (req: FastifyRequest) => TradingCall,
) {
  const { config } = context
  const access = accessOf(op)
  const rule: Rule = POLICY[access]
  // A door that can refuse for want of a credential (an owned thing without a scope is refused as not_found).
  const guarded = rule.need !== 'anyone' && !(rule.need === 'owner' && !rule.scope)
  const tag = op.tag ?? TRADING_GROUPS[op.group].tag
  const description = (op.description ?? '') + (op.heavy && op.body ? jobBudgetNote(op.body, config.jobMaxMs) : '')
  const ok = op.produces
    ? { description: op.produces.description, content: { [op.produces.type.split(';')[0]!]: { schema: z.string() } } }
    : op.alternates?.length
      ? {
          description: 'JSON by default; other representations by Accept',
          content: {
            [JSON_TYPE]: { schema: op.output },
            ...Object.fromEntries(op.alternates.map((a) => [a.type.split(';')[0]!, { schema: z.string() }])),
          },
        }
      : op.output
  const offered = [JSON_TYPE, ...(op.alternates ?? []).map((a) => a.type.split(';')[0]!)]
  app.route({
    method: op.method,
    url: op.path,
    ...(op.bodyLimit === 'large' ? { bodyLimit: config.largeBodyLimitBytes } : {}),
    ...(op.heavy ? JUDGE_BY_PATH : {}),
    config: {
      operation: op.name,
      ...(op.largeAnswer ? { largeAnswer: true, answerBytes: op.answerBytes } : {}),
      ...(op.examples ? { examples: op.examples } : {}),
      ...(guarded || op.refusals ? { refusals: [...(guarded ? SCOPE_REFUSALS : []), ...(op.refusals ?? [])] } : {}),
      // The door: asked by the host's access plugin before a body of up to LARGE_BODY_LIMIT_BYTES is read.
      access,
    },
    schema: {
      tags: [tag],
      summary: op.summary,
      ...(description ? { description } : {}),
      ...(op.deprecated ? { deprecated: true } : {}),
      ...(op.params ? { params: op.params } : {}),
      ...(op.query ? { querystring: op.query } : {}),
      ...(op.headers ? { headers: op.headers } : {}),
      ...(op.body ? { body: op.body } : {}),
      ...(op.textBody ? { consumes: ['text/csv', JSON_TYPE] } : {}),
      ...(op.produces ? { produces: [op.produces.type.split(';')[0]!] } : {}),
      response: {
        200: ok,
        ...(op.responses ?? {}),
        ...(op.heavy ? { 202: jobViewSchema } : {}),
        ...problemResponses,
      },
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (op.ownTurn) await ownTurn()
      const alternate = op.alternates?.length ? chosenAlternate(op, req, offered) : null
      const input = inputOf(op, req, config.jobMaxMs)
      const call = callOf(req)
      if (op.heavy) {
        await op.heavy.check(input, call)
        app.admission.admitHeavy(op.name, req.principal)
        const submitted = await submitOrWait(app.jobs, req, reply, { op: op.name, surface: 'trading', input })
        return submitted.async ? reply.send(submitted.view) : submitted.result
      }
      if (alternate) {
        const body = await alternate.body(input as never, call)
        for (const [name, value] of Object.entries(alternate.headers?.(input as never) ?? {})) reply.header(name, value)
        return reply.type(alternate.type).send(body)
      }
      const data = await op.handler(input, call)
      if (data instanceof Answer) {
        reply.code(data.status)
        for (const [name, value] of Object.entries(data.headers)) reply.header(name, value)
        if (op.produces) reply.type(op.produces.type)
        return reply.send(data.body)
      }
      if (op.produces) return reply.type(op.produces.type).send(data)
      return data
    },
  })
}

/**
 * The handler's input: header members it declares, the query, the body (a text body, or the bytes of one, under
 * `textBody`), the path.
 */
function inputOf(op: TradingOperation, req: FastifyRequest, jobMaxMs: number): Record<string, unknown> {
  // Heavy routes attach their validation error so a job's body may raise timeout_ms; one without a body raises nothing.
  if (op.heavy && !op.body && req.validationError) throw req.validationError
  const body: unknown = op.heavy && op.body ? inputForPath(req, op.body, jobMaxMs) : req.body
  const headers: Record<string, unknown> = {}
  for (const name of Object.keys(op.headers?.shape ?? {})) {
    const value = req.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  const fromBody = op.textBody && (typeof body === 'string' || isBodyBytes(body)) ? { [op.textBody]: body }
    : body !== null && typeof body === 'object' ? body : {}
  return { ...headers, ...(req.query as object | undefined), ...fromBody, ...(req.params as object | undefined) }
}

/**
 * The representation the request's Accept prefers among JSON and the operation's alternates: null for JSON (also when
 * Accept is absent or allows anything); a 406 problem when it accepts none of them.
 */
function chosenAlternate(op: TradingOperation, req: FastifyRequest, offered: readonly string[]) {
  const chosen = negotiate(req.headers.accept, offered)
  if (chosen === null) {
    throw new PlatformProblem(406, 'not_acceptable', 'Not acceptable',
      `${op.method} ${op.url} answers ${offered.join(' or ')}; the request accepts none of them (Accept: ${String(req.headers.accept).slice(0, 200)})`,
      { acceptable: offered })
  }
  return chosen === JSON_TYPE ? null : op.alternates!.find((a) => a.type.startsWith(chosen))!
}
