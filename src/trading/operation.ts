// defineTradingOperation(): the one description of a trading route; its Fastify route, its job, its MCP tool and its
// `ncm` command are projections of it (routes.ts, jobs.ts, src/mcp/trading-tools.ts, src/cli/trading-commands.ts).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Credential } from '../access/auth.js'
import type { Action, Principal } from '../access/policy.js'
import type { RefusalCode } from '../http/refusal.js'
import type { TradingContext } from './context.js'
import type { JsonBytes } from '../json/bytes.js'

/** The platform's API versions and its root (/health, /command-center); each is one prefix with its own hooks. */
export const TRADING_GROUPS = {
  root: { prefix: '', tag: 'trading v11' },
  v11: { prefix: '/api/v11', tag: 'trading v11' },
  v10: { prefix: '/api/v10', tag: 'trading v10' },
  v6: { prefix: '/api/v6', tag: 'trading v6' },
} as const
export type TradingGroup = keyof typeof TRADING_GROUPS

/** What a handler may use: the platform's services and the request's own part. */
export interface TradingCall extends TradingContext {
  /** The root instance (its route table and scale-out report are read by system operations). */
  host: FastifyInstance
  credential: Credential | null
  /** Who is asking (the access plugin's): owns the jobs and idempotency keys it makes. */
  principal: Principal
  requestId: string
  /** The address the client reached this host at (PUBLIC_URL when set). */
  baseUrl: string
  log: FastifyBaseLogger
}

/** An answer with a status other than 200, headers, or a body that is not JSON (text, a stream of CSV). */
export class Answer<T = unknown> {
  constructor(
    readonly body: T,
    readonly status: number = 200,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** A representation other than JSON, chosen by the request's Accept (RFC 9110 §12.5.1). */
export interface Alternate<I> {
  /** e.g. `text/csv; charset=utf-8`. */
  type: string
  /** Headers of this representation (a download's file name). */
  headers?(input: I): Record<string, string>
  /** The body: a string, or a stream written with backpressure. */
  body(input: I, call: TradingCall): Promise<string | NodeJS.ReadableStream>
}

type AnyObject = z.ZodObject<z.ZodRawShape>
type Fields<S> = S extends z.ZodType ? (z.output<S> extends Record<string, unknown> ? z.output<S> : object) : object
/** A handler's input: path parameters, query, headers and the JSON body's members, in one object. */
export type InputOf<P, Q, H, B> = Fields<P> & Fields<Q> & Fields<H> & Fields<B>

export interface TradingOperationDefinition<
  P extends AnyObject | undefined, Q extends AnyObject | undefined, H extends AnyObject | undefined,
  B extends z.ZodType | undefined, O extends z.ZodType,
> {
  /** Logs, metrics, refusals and (heavy) the job's op name: stored jobs are re-run by it, so it never changes. */
  name: string
  method: 'GET' | 'POST' | 'DELETE'
  group: TradingGroup
  /** Under the group's prefix, Fastify syntax (`/runs/:id`). */
  path: string
  summary: string
  description?: string
  /** The OpenAPI tag, when not its group's. */
  tag?: string
  /**
   * The action of the access policy (src/access/policy.ts) the route is, asked before a body is read: by default
   * `compute.heavy` for heavy work, else `host.read` (anyone). e.g. `dataset.write`, `ledger.write`, `run.delete`.
   */
  action?: Action
  params?: P
  query?: Q
  headers?: H
  body?: B
  /** A text body (text/csv) becomes this member of the input. */
  textBody?: string
  /** 'large' raises the body limit to LARGE_BODY_LIMIT_BYTES (imports). */
  bodyLimit?: 'large'
  output: O
  /** Statuses besides 200 with their schemas (201 of a creation, 503 of a health check). */
  responses?: Record<number, z.ZodType>
  /** Answered as HTML or text only (no JSON): the content type and its OpenAPI description. */
  produces?: { type: string; description: string }
  alternates?: readonly Alternate<InputOf<P, Q, H, B>>[]
  /**
   * Runs as a job (POST only): `check` makes every refusal the job would make before its heavy work, so a bad input
   * is refused before a job exists. The job's input is the handler's input; the route adds the job budget note to the description.
   * `measuresNow`: the answer says what this engine answers now (a replay), so an identical earlier job is never shared.
   */
  heavy?: { check(input: InputOf<P, Q, H, B>, call: TradingCall): Promise<void>; measuresNow?: true }
  /**
   * Answers from work in the mill while its request waits (no job): heavy work besides its door's action, asked by the
   * admission as the work starts (a run's Monte Carlo bands).
   */
  mill?: true
  /** An answer that grows with the stored data: its memory is reserved first (the memory admission) while it is held and sent. */
  largeAnswer?: boolean
  /** What such an answer reserves when a page bounds it (default LARGE_BODY_LIMIT_BYTES). */
  answerBytes?: number
  /** Reads that cost a few ms of synchronous work each: each request waits for a loop turn of its own. */
  ownTurn?: boolean
  deprecated?: boolean
  /** Inputs that succeed on a host with the synthetic seed: the explorer starts from them (test/openapi-examples.test.ts runs each). */
  examples?: readonly Record<string, unknown>[]
  /** Refusals it documents besides the access policy's (which come with an action that needs a credential). */
  refusals?: readonly RefusalCode[]
  /** Exposed as an MCP tool under this name. */
  mcp?: { name: string; title: string }
  /** Exposed as an `ncm` command under this name, with a one-line caption and an example input for its help. */
  cli?: { name: string; caption: string; example: Record<string, unknown> }
  /** The answer, its bytes as the output schema writes them (written where it was computed), or a non-JSON Answer. */
  handler(input: InputOf<P, Q, H, B>, call: TradingCall): Promise<z.output<O> | JsonBytes | Answer> | z.output<O> | JsonBytes | Answer
}

export interface TradingOperation {
  readonly name: string
  readonly method: 'GET' | 'POST' | 'DELETE'
  readonly group: TradingGroup
  readonly path: string
  /** The path from the host's root. */
  readonly url: string
  readonly summary: string
  readonly description?: string
  readonly tag?: string
  readonly action?: Action
  readonly params?: AnyObject
  readonly query?: AnyObject
  readonly headers?: AnyObject
  readonly body?: z.ZodType
  readonly textBody?: string
  readonly bodyLimit?: 'large'
  readonly output: z.ZodType
  readonly responses?: Record<number, z.ZodType>
  readonly produces?: { type: string; description: string }
  readonly alternates?: readonly Alternate<any>[]
  readonly heavy?: { check(input: any, call: TradingCall): Promise<void>; measuresNow?: true }
  readonly mill?: true
  readonly largeAnswer?: boolean
  readonly answerBytes?: number
  readonly ownTurn?: boolean
  readonly deprecated?: boolean
  readonly examples?: readonly Record<string, unknown>[]
  readonly refusals?: readonly RefusalCode[]
  readonly mcp?: { name: string; title: string }
  readonly cli?: { name: string; caption: string; example: Record<string, unknown> }
  /** Every input member in one schema: what MCP tools and `ncm` commands parse. */
  readonly input: AnyObject
  handler(input: any, call: TradingCall): Promise<unknown> | unknown
}

/** The action of the access policy a trading operation is (its route's door, its MCP tool's, its command's). */
export const accessOf = (op: Pick<TradingOperation, 'action' | 'heavy'>): Action => op.action ?? (op.heavy ? 'compute.heavy' : 'host.read')

/** Every action a call of the operation is: its door's, and compute.heavy when it works in the mill (asked by the admission). */
export function actionsOfTrading(op: Pick<TradingOperation, 'action' | 'heavy' | 'mill'>): Action[] {
  const door = accessOf(op)
  return (op.heavy || op.mill) && door !== 'compute.heavy' ? [door, 'compute.heavy'] : [door]
}

export function defineTradingOperation<
  P extends AnyObject | undefined = undefined, Q extends AnyObject | undefined = undefined,
  H extends AnyObject | undefined = undefined, B extends z.ZodType | undefined = undefined, O extends z.ZodType = z.ZodType,
>(definition: TradingOperationDefinition<P, Q, H, B, O>): TradingOperation {
  if (definition.heavy && definition.method !== 'POST') throw new Error(`${definition.name}: only POST operations run as jobs`)
  return Object.freeze({
    ...definition,
    url: TRADING_GROUPS[definition.group].prefix + definition.path,
    input: inputSchemaOf(definition),
  }) as TradingOperation
}

/** Params, query, headers and the JSON body's members merged: one object schema (strict when the body is). */
function inputSchemaOf(def: { params?: AnyObject | undefined; query?: AnyObject | undefined; headers?: AnyObject | undefined; body?: z.ZodType | undefined }): AnyObject {
  const body = jsonBodyOf(def.body)
  let merged: AnyObject = body ?? z.object({})
  for (const part of [def.headers, def.query, def.params]) if (part) merged = merged.safeExtend(part.shape)
  return body === null ? merged.strict() : merged
}

/** The object member of a body schema (a JSON body, or the JSON form of a body that may also be text). */
function jsonBodyOf(body: z.ZodType | undefined): AnyObject | null {
  if (body instanceof z.ZodObject) return body as AnyObject
  if (body instanceof z.ZodUnion) {
    const object = (body.options as z.ZodType[]).find((o) => o instanceof z.ZodObject)
    if (object) return object as AnyObject
  }
  return null
}

/** Path parameter names in order (`/runs/:id/trades` → ['id']). */
export const pathParams = (path: string): string[] => path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1))

/** The request of an input: the path with its parameters filled in, and the other members (for a query or a body). */
export function requestOf(op: TradingOperation, input: Record<string, unknown>): { path: string; rest: Record<string, unknown> } {
  const rest = { ...input }
  const path = op.url.replace(/:([A-Za-z_]+)/g, (param, name: string) => {
    const value = rest[name]
    delete rest[name]
    return value === undefined ? param : encodeURIComponent(String(value))
  })
  return { path, rest }
}
