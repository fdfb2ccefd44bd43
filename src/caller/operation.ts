// defineOperation(): the one description of a caller operation; routes, listings, docs, /run, /cli and the CLI project it.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Config } from '../config.js'
import type { Store } from '../store/index.js'
import type { Mill, RunOptions } from '../mill/pool.js'
import type { Admission } from '../plugins/admission.js'
import type { Authenticator, Credential } from '../access/auth.js'
import type { Action, Policy, Principal } from '../access/policy.js'
import type { Refusal, RefusalCode } from '../http/refusal.js'
import type { CallerCounters } from './counters.js'
import type { Clock } from '../sched/clock.js'
import type { JsonBytes } from '../json/bytes.js'
import type { BodyBlocksPayload, FromBodyResult } from '../mill/tasks/from-body.js'

export const LOBES = ['discovery', 'logic', 'capacity', 'text', 'access', 'orchestration', 'runtime'] as const
export type Lobe = (typeof LOBES)[number]

/** Where an operation's numbers come from (SPEC §1.4). */
export type Provenance = 'computed' | 'measured' | 'stored' | 'declared'
export type Stability = 'stable' | 'labs' | 'refused'

/** What a handler may use. Handlers return data and throw Refusals; they never touch the reply. */
export interface OperationContext {
  config: Config
  store: Store
  mill: Mill
  admission: Admission
  clock: Clock
  counters: CallerCounters
  /** The root Fastify instance: its route table and OpenAPI document are read by discovery operations. */
  host: FastifyInstance
  registry: Registry
  auth: Authenticator
  /** The one authorization function (src/access/policy.ts): every door of an operation asks it. */
  policy: Policy
  credential: Credential | null
  /** Who is asking: owns the jobs it submits; the policy decides what it may do. */
  principal: Principal
  requestId: string
  /**
   * Reserves bytes of the answer until the door's response closes (the memory admission), or throws `occupied`: for
   * an answer whose size is learnt before it is held (a pin read: its stored size, before its bytes are read).
   */
  holdAnswer(bytes: number): void
  /** The address the client reached this host at (PUBLIC_URL when set), for runnable lines in answers. */
  baseUrl: string
  log: FastifyBaseLogger
}

export interface OperationDefinition<I extends z.ZodType, O extends z.ZodType> {
  name: string
  method: 'GET' | 'POST'
  /** Path under /api/v1, e.g. '/sat'. */
  path: string
  lobe: Lobe
  /** One line. */
  caption: string
  /** A paragraph: what it does, what it refuses. */
  summary: string
  /** Body (POST) or querystring (GET) schema. */
  input: I
  /** Schema of `data` in the envelope. */
  output: O
  provenance: Provenance[]
  /** For `declared` figures: where the facts come from. */
  sources?: string[]
  /** Runs in the mill: refused with `occupied` while the host is shedding or draining. */
  heavy?: boolean
  stability?: Stability
  /** For labs operations: what is missing before they are stable. */
  missing?: string
  /** 'large' raises the body limit to LARGE_BODY_LIMIT_BYTES (SPEC §1.5). */
  bodyLimit?: 'default' | 'large'
  /**
   * An answer that grows with the input (a patch, a listing, pinned content, a batch's answers): the route writes it a
   * part per loop turn instead of in one serializer call. Heavy operations' answers always are (their jobs write them).
   */
  largeAnswer?: boolean
  /**
   * The input member a `text/plain` body fills (e.g. /sat's `dimacs`: `curl --data-binary @f.cnf -H 'content-type:
   * text/plain'`); the other members then come from the query string. Without it a text body is refused.
   */
  textBody?: string
  /**
   * The action of the access policy a call is (src/access/policy.ts), when it is neither `compute.heavy` (heavy
   * operations) nor `compute.light`: e.g. `grant.issue`. Asked at the door, before the body is read.
   */
  action?: Action
  /**
   * A further action the input may call for (a pin write, a proof pinned by /sat), or null: asked by the gate before
   * the input schema, on every door.
   */
  inputAction?: (input: unknown) => Action | null
  /** Checks of declared limits that run before any work (over_limit refusals). */
  checkLimits?: (input: z.output<I>, ctx: OperationContext) => void
  /** For operations refused by nature (`chat`): the refusal, given before anything else is checked. */
  refuses?: () => Refusal
  /**
   * Refusal codes the handler itself may answer with (a lookup's not_found, a stored conflict), beyond those the gate
   * and the route's shape give: the OpenAPI documents list them as responses.
   */
  refusals?: readonly RefusalCode[]
  /** Inputs that must succeed; the contract test runs each one. */
  examples: Array<z.input<I>>
  /**
   * Files the `ncm` binary can write from an answer, each by a flag `--<name> <file>` (e.g. proof_out): the answer names
   * a path on the host (`url`), the binary GETs it as text and writes it. Only the binary has these flags.
   */
  downloads?: Record<string, { caption: string; url: (data: z.output<O>) => string | null }>
  /** Alternative non-JSON rendering of the data, chosen when the client does not ask for JSON. */
  render?: { contentType: string; body: (data: z.output<O>) => string }
  /**
   * Reads a large body (over 64 KiB) in the mill from its bytes instead of the handler reading it as a value: parsed,
   * validated with `input`, limits checked and answered there, the answer written by `output` (issue #30: on the loop a
   * request handles at most 64 KiB of JSON as a value). Smaller bodies, /run items, /cli lines and MCP calls still come
   * to the handler. `read` gives its mill task's value or throws the refusal the same body gets on the loop. Not for
   * heavy operations (their jobs store the input). With inputAction, its task asks the same (workFromBody's inputAction).
   */
  fromBody?: (body: BodyTask, ctx: OperationContext, read: ReadFromBody) => Promise<Answer<O>>
  /**
   * A heavy operation's run from its input's JSON bytes, for an input over 64 KiB: a large body is made into its job's
   * stored input in the mill (parsed, validated by `input`, limits checked: by inputs/stored.ts's rules for this
   * operation, which must be its own `input`, checkLimits and inputAction), and its job hands those bytes here, to send
   * on to its mill task. Smaller inputs, /run items, /cli lines and MCP calls still come to the handler.
   */
  fromStored?: (input: JsonBytes, ctx: OperationContext) => Promise<Answer<O>>
  /** The answer, or its text as the output schema writes it (src/json/serializer.ts) where it was computed (the mill). */
  handler: (input: z.output<I>, ctx: OperationContext) => Answer<O> | Promise<Answer<O>>
}

/** A body on its way to its operation's task: the payload, and how the task runs (its budget, owner, moved buffers). */
export interface BodyTask {
  payload: BodyBlocksPayload
  options: RunOptions
}

/** What an operation's fromBody gets to read its task's outcome: the value, or the refusal the same body gets on the loop (gate.ts). */
export type ReadFromBody = <T>(task: Promise<FromBodyResult<T, Action>>) => Promise<T>

export type Answer<O extends z.ZodType> = z.output<O> | JsonBytes

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType>
  extends Required<Pick<OperationDefinition<I, O>, 'heavy' | 'stability' | 'bodyLimit'>>,
    Omit<OperationDefinition<I, O>, 'heavy' | 'stability' | 'bodyLimit'> {}

export type AnyOperation = Operation<z.ZodType, z.ZodType>

export function defineOperation<I extends z.ZodType, O extends z.ZodType>(
  definition: OperationDefinition<I, O>,
): Operation<I, O> {
  return Object.freeze({
    heavy: false,
    stability: 'stable' as Stability,
    bodyLimit: 'default' as const,
    ...definition,
  })
}

export interface Registry {
  readonly operations: readonly AnyOperation[]
  byName(name: string): AnyOperation | undefined
}

/** Input schema for operations without input: rejects unknown fields so typos are not silently ignored. */
export const noInput = z.object({}).strict()

export type RequestPart = Pick<OperationContext, 'credential' | 'principal' | 'requestId' | 'log' | 'baseUrl' | 'holdAnswer'>

/** What an operation sees: the host's instance-wide services (decorators) and the request's own part. */
export const operationContext = (app: FastifyInstance, who: RequestPart): OperationContext => ({
  config: app.config,
  store: app.store,
  mill: app.mill,
  admission: app.admission,
  clock: app.clock,
  counters: app.callerCounters,
  host: app,
  registry: app.registry,
  auth: app.auth,
  policy: app.policy,
  ...who,
})

/** Whether the operation reads a body over 64 KiB in the mill (fromBody, or fromStored for a heavy one): its route keeps such a body as bytes. */
export const readsBodyInMill = (op: AnyOperation): boolean => op.fromBody !== undefined || op.fromStored !== undefined

/** The action every call of the operation is (refused-by-nature operations open their door and refuse). */
export function actionOf(op: AnyOperation): Action {
  if (op.refuses) return 'compute.refused'
  return op.action ?? (op.heavy ? 'compute.heavy' : 'compute.light')
}

/** Every action a call with this input is: the operation's own, and the one its input calls for, if any. */
export function actionsOf(op: AnyOperation, raw: unknown): Action[] {
  const extra = op.refuses ? null : op.inputAction?.(raw) ?? null
  return extra === null ? [actionOf(op)] : [actionOf(op), extra]
}
