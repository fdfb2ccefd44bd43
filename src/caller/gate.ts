// The refuse-first gate (SPEC §2.6): nature, credential, input, limits, admission — and only then the handler.
import type { z } from 'zod'
import { issuesFromZod, Refusal } from '../http/refusal.js'
import { actionsOf, readsBodyInMill, type AnyOperation, type BodyTask, type OperationContext, type ReadFromBody } from './operation.js'
import { BodyBlocks } from '../body-parse/formats.js'
import { bodyFailure } from '../body-parse/reader.js'
import { refusalOf } from '../mill/tasks/task-result.js'
import { movable } from '../mill/moving.js'
import { budgetOf } from '../mill/pool.js'
import { isStoredInputOp } from '../inputs/stored.js'
import { StoredInput } from '../jobs/types.js'
import { JsonBytes } from '../json/bytes.js'
import { CALLER_PREFIX } from '../http/envelope.js'

/** Checks that need no parsed input: refused by nature, then the access policy for each action this call is. */
export function admitBeforeInput(op: AnyOperation, raw: unknown, ctx: OperationContext): void {
  if (op.refuses) throw op.refuses().forOp(op.name)
  for (const action of actionsOf(op, raw)) ctx.policy.authorize(ctx.principal, action, undefined, op.name)
}

/** Parses the input with the operation's schema (or any named schema, e.g. an MCP trading tool's); every problem is listed. */
export function parseInput(op: Pick<AnyOperation, 'name' | 'input'>, raw: unknown): unknown {
  const parsed = (op.input as z.ZodType).safeParse(raw ?? {})
  if (!parsed.success) {
    throw new Refusal('invalid_input', `the input of ${op.name} does not match its schema`, {
      op: op.name,
      issues: issuesFromZod(parsed.error),
    })
  }
  return parsed.data
}

/** The checks that need the parsed input: the operation's limits, then admission of heavy work (refusals name the op). */
export function admitParsed(op: AnyOperation, input: unknown, ctx: OperationContext): void {
  try {
    op.checkLimits?.(input, ctx)
    if (op.heavy) ctx.admission.admitHeavy(op.name, ctx.principal)
  } catch (err) {
    throw err instanceof Refusal ? err.forOp(op.name) : err
  }
}

/** Limits, admission, then the handler. Input must already be parsed, or be a large body the operation reads in the mill. */
export async function runParsed(op: AnyOperation, input: unknown, ctx: OperationContext): Promise<unknown> {
  if (input instanceof BodyBlocks) return runFromBody(op, input, ctx)
  admitParsed(op, input, ctx)
  return runHandler(op, input, ctx)
}

/**
 * A large body read, checked and answered in the mill (Operation.fromBody). Its refusals are those the same body gets
 * on the loop, in the same order: the body parser's and the route's validation (neither names the op), the action its
 * input calls for (asked before its validation, as at the door), then its limits' and its work's. A heavy operation
 * that runs from its input's bytes (Operation.fromStored) is given the stored input its job would be, without a job.
 */
async function runFromBody(op: AnyOperation, body: BodyBlocks, ctx: OperationContext): Promise<unknown> {
  const { fromBody } = op
  if (fromBody) return answered(op, ctx, await inTheMillFromBody(op, body, ctx, (task, read) => fromBody(task, ctx, read)))
  if (!op.fromStored) throw new Error(`${op.name} was given its body's bytes but reads no body in the mill`)
  return runHandler(op, (await storedInputOf(op, body, ctx, null)).json, ctx)
}

/**
 * A heavy operation's input for its job, after its limits and admission: a large body made into its stored input in
 * the mill (inputs/stored.ts; refused as runFromBody refuses), never a value here; any other input as it is.
 */
export async function jobInput(op: AnyOperation, input: unknown, ctx: OperationContext, jobMaxMs: number | null): Promise<unknown> {
  if (input instanceof BodyBlocks) return storedInputOf(op, input, ctx, jobMaxMs)
  admitParsed(op, input, ctx)
  return input
}

async function storedInputOf(op: AnyOperation, body: BodyBlocks, ctx: OperationContext, jobMaxMs: number | null): Promise<StoredInput> {
  const { name } = op
  if (!isStoredInputOp(name)) throw new Error(`${name} was given its body's bytes but stores no input from them`)
  return inTheMillFromBody(op, body, ctx, async ({ payload, options }, read) => {
    const { json, digest } = await read(ctx.mill.run('jobs.storedInput', { ...payload, op: name, jobMaxMs }, options))
    return new StoredInput(new JsonBytes([json]), digest)
  })
}

/** A body's task in the mill, and how its outcome is read: refused as the route refuses the same body (runFromBody). */
async function inTheMillFromBody<T>(op: AnyOperation, body: BodyBlocks, ctx: OperationContext, use: (task: BodyTask, read: ReadFromBody) => Promise<T>): Promise<T> {
  // Asked now, refused only if the input turns out to need heavy work, after its own checks (as the handler's admission).
  const heavyRefusal = ctx.admission.heavyRefusal(op.name, ctx.principal)
  const { views, transfer } = movable(body.blocks)
  const mayWorkHeavy = heavyRefusal === null
  const task: BodyTask = {
    payload: { blocks: views, format: body.format, fields: body.fields, mayWorkHeavy },
    options: { timeoutMs: budgetOf(undefined), op: op.name, owner: ctx.principal.owner, transfer, short: !mayWorkHeavy },
  }
  const asTheRoute = new WeakSet<Error>()
  const routes = (err: Error): Error => (asTheRoute.add(err), err)
  const read: ReadFromBody = async (running) => {
    const result = await running
    if (!result.ok && 'body' in result) throw routes(bodyFailure(result.body))
    if (result.asks) ctx.policy.authorize(ctx.principal, result.asks, undefined, op.name)
    if (result.ok) return result.value
    if ('input' in result) throw routes(refusalOf(result.input))
    if ('heavy' in result) throw heavyRefusal ?? new Error(`${op.name}'s task held back heavy work it was allowed`)
    throw refusalOf(result.refusal)
  }
  try {
    return await use(task, read)
  } catch (err) {
    throw err instanceof Refusal && !asTheRoute.has(err) ? err.forOp(op.name) : err
  }
}

/** An operation's answer, counted (the store touched, for the truth summary) however it was worked. */
function answered<T>(op: AnyOperation, ctx: OperationContext, data: T): T {
  if (op.provenance.includes('stored')) ctx.counters.storeTouched++
  return data
}

/**
 * What a job runs, its limits and admission checked at submission: the handler, or the operation's run from its input's
 * JSON bytes (an input over 64 KiB: Operation.fromStored; the job hands bytes only where that is declared).
 */
export async function runHandler(op: AnyOperation, input: unknown, ctx: OperationContext): Promise<unknown> {
  try {
    if (input instanceof JsonBytes) {
      if (!op.fromStored) throw new Error(`${op.name}'s job was handed its input's bytes but runs from no bytes`)
      return answered(op, ctx, await op.fromStored(input, ctx))
    }
    return answered(op, ctx, await op.handler(input, ctx))
  } catch (err) {
    throw err instanceof Refusal ? err.forOp(op.name) : err
  }
}

/**
 * The whole gate, as /run and /cli use it. An input handed over as its bytes (a /run job's too large for the loop) is
 * read as the operation's own route reads such a body: in the mill by an operation that reads it there, else parsed
 * there into the value its route would get.
 */
export async function runOperation(op: AnyOperation, raw: unknown, ctx: OperationContext): Promise<unknown> {
  const input = raw instanceof BodyBlocks && !readsBodyInMill(op) ? await valueOfBody(raw, CALLER_PREFIX + op.path, ctx) : raw
  admitBeforeInput(op, input, ctx)
  return runParsed(op, input instanceof BodyBlocks ? input : parseInput(op, input), ctx)
}

/** An input the mill handed back as its JSON's bytes (too wide for the loop), as a JSON body under the host's caps. */
export const inputBytes = (json: Uint8Array, ctx: OperationContext): BodyBlocks =>
  new BodyBlocks([json], { kind: 'json', maxDepth: ctx.config.jsonMaxDepth, maxValues: ctx.config.jsonMaxValues })

/** A large JSON body's value, parsed in the mill as the body parser parses one that arrives for `route`. */
export function valueOfBody(body: BodyBlocks, route: string, ctx: OperationContext): Promise<unknown> {
  if (body.format.kind !== 'json') throw new Error(`a ${body.format.kind} body is read only by an operation that reads it in the mill`)
  return ctx.host.bodyReader.parseBlocks(body.blocks, body.format, { owner: ctx.principal.owner, route })
}
