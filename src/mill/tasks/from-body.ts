// An operation's input read in the mill from its body's bytes (issue #30 item 1): parsed under the host's caps,
// validated by the operation's own schema, with the refusals the route gives for the same body on the loop.
import type { z } from 'zod'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { joined, parseBody, type BodyFailure, type JsonFormat, type TextFormat } from '../../body-parse/formats.js'
import { validationRefusal, type ValidationFailure } from '../../http/validation.js'
import { Refusal } from '../../http/refusal.js'
import { refusalAsData, type TaskRefusal, type TaskResult } from './task-result.js'
import { answerBytes, type AnswerSchema } from '../../json/serializer.js'
import { moving } from '../moving.js'

/** A body an operation reads in the mill: its blocks, moved here, and the caps to parse them under. */
export interface BodyBlocksPayload {
  blocks: Uint8Array[]
  format: JsonFormat | TextFormat
  /** A text body's other members (BodyBlocks.fields), joined to its text's. */
  fields?: Record<string, unknown> | undefined
  /**
   * Whether the client may have heavy work done now (its compute.heavy and the host's load, asked on the loop before the
   * task). When not, work the route would send to the mill is not done: the task answers NEEDS_HEAVY after the input's
   * checks, and the loop refuses as the route's admission would, in the same order.
   */
  mayWorkHeavy: boolean
}

/** Work the route would send to the mill, for a client that may not have heavy work done now. */
export const NEEDS_HEAVY = { ok: false, heavy: true } as const

/** A task's work from a body: its result, or NEEDS_HEAVY. */
export type BodyWork<T> = TaskResult<T> | typeof NEEDS_HEAVY

/**
 * An operation's answer from its body, or why not: the body itself (refused as the body parser refuses it), its input
 * (as the route's validation refuses it: no operation named), or a refusal of its limits or work (the gate names the op).
 */
export type FromBodyResult<T, A extends string = never> = (BodyWork<T> | { ok: false; input: TaskRefusal }) & { asks?: A | null } | { ok: false; body: BodyFailure }

/**
 * The action an input calls for (Operation.inputAction: an action of the access policy, which the gate asks), asked of
 * the value before its validation.
 */
export type InputAction<A extends string> = (raw: unknown) => A | null

/**
 * The body's input as `schema` outputs it (defaults applied), or the failure the route would answer. `judge` stands in
 * for the schema's validation where the route judges more (a job's budget: inputs/job-budget.ts).
 */
export function inputFromBody<S extends z.ZodType, A extends string = never>(
  { blocks, format, fields }: BodyBlocksPayload, schema: S, inputAction?: InputAction<A>, judge: Judge<z.output<S>> = (value) => judgedBy(schema, value),
): BodyInput<z.output<S>, A> {
  const parsed = parseBody(joined(blocks), format)
  if (!parsed.ok) return { ok: false, body: parsed }
  if (!('value' in parsed)) throw new Error('a JSON body parsed to a value, not text')
  const value = fields === undefined ? parsed.value : { ...fields, ...(parsed.value as Record<string, unknown>) }
  const asks = inputAction?.(value) ?? null
  const judged = judge(value)
  return judged.ok ? { ...judged, asks } : { ok: false, input: refusalAsData(judged.refusal), asks }
}

/** A value's input, or the refusal its route gives it (neither names the operation). */
export type Judge<T> = (value: unknown) => { ok: true; input: T } | { ok: false; refusal: Refusal }

/** A value validated by `schema` as the route's own validation does it (fastify-type-provider-zod's compiler). */
export function validated<S extends z.ZodType>(schema: S, value: unknown): { ok: true; input: z.output<S> } | { ok: false; failures: ValidationFailure[] } {
  const checked = validatorCompiler({ schema, method: 'POST', url: '', httpPart: 'body' })(value) as { value?: z.output<S>; error?: ValidationFailure[] }
  return checked.error ? { ok: false, failures: checked.error } : { ok: true, input: checked.value as z.output<S> }
}

/** A body's value judged by its route's schema alone. */
export function judgedBy<S extends z.ZodType>(schema: S, value: unknown): ReturnType<Judge<z.output<S>>> {
  const checked = validated(schema, value)
  return checked.ok ? checked : { ok: false, refusal: validationRefusal(checked.failures, 'body') }
}

/** A body's input, or why not (as FromBodyResult), with the action it calls for. */
export type BodyInput<T, A extends string> = { ok: true; input: T; asks: A | null } | { ok: false; input: TaskRefusal; asks: A | null } | { ok: false; body: BodyFailure }

/** The work's value, or the refusal it threw as data (a Refusal's class does not cross the thread); other errors rethrown. */
export function refusedAsData<T>(work: () => BodyWork<T>): BodyWork<T> {
  try {
    return work()
  } catch (err) {
    if (err instanceof Refusal && (err.code === 'invalid_input' || err.code === 'over_limit' || err.code === 'not_found')) return { ok: false, refusal: refusalAsData(err) }
    throw err
  }
}


/** A body an operation answers from, with the schema its answer is written by. */
export type AnswerFromBody = BodyBlocksPayload & { answer: AnswerSchema }

/** An operation's whole answer from its body's bytes: read by `schema`, worked by `work`, written by `answer`. */
export function answerFromBody<S extends z.ZodType, T extends object>({ answer, ...body }: AnswerFromBody, schema: S, work: (input: z.output<S>) => BodyWork<T>): FromBodyResult<Uint8Array> {
  return workFromBody(body, schema, (input) => writtenAnswer(work(input), answer))
}

/** An operation's work from its body's bytes: read by `schema` (its input action asked), then `work`, its refusals as data. */
export function workFromBody<S extends z.ZodType, T, A extends string = never>(
  body: BodyBlocksPayload, schema: S, work: (input: z.output<S>) => BodyWork<T>, inputAction?: InputAction<A>, judge?: Judge<z.output<S>>,
): FromBodyResult<T, A> {
  const read = inputFromBody(body, schema, inputAction, judge)
  if (!read.ok) return read
  // Assigned, not spread: the result may be marked to move its buffers (moving), a mark a copy would lose.
  return Object.assign(refusedAsData(() => work(read.input)), { asks: read.asks })
}

/** A task's value written with its warnings by the answer's schema, as bytes that move to the loop. */
export function writtenAnswer<T extends object>(result: TaskResult<T>, answer: AnswerSchema): TaskResult<Uint8Array>
export function writtenAnswer<T extends object>(result: BodyWork<T>, answer: AnswerSchema): BodyWork<Uint8Array>
export function writtenAnswer<T extends object>(result: BodyWork<T>, answer: AnswerSchema): BodyWork<Uint8Array> {
  if (!result.ok) return result
  const bytes = answerBytes(answer, { ...result.value, warnings: result.warnings })
  return moving({ ...result, value: bytes }, [bytes.buffer as ArrayBuffer])
}
