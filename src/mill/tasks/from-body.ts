// An operation's input read in the mill from its body's bytes (issue #30 item 1): parsed under the host's caps,
// validated by the operation's own schema, with the refusals the route gives for the same body on the loop.
import type { z } from 'zod'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { joined, parseBody, type BodyFailure, type JsonFormat } from '../../body-parse/formats.js'
import { validationRefusal } from '../../http/validation.js'
import { Refusal } from '../../http/refusal.js'
import type { TaskRefusal, TaskResult } from './task-result.js'

/** A body an operation reads in the mill: its blocks, moved here, and the caps to parse them under. */
export interface BodyBlocksPayload {
  blocks: Uint8Array[]
  format: JsonFormat
}

/**
 * An operation's answer from its body, or why not: the body itself (refused as the body parser refuses it), its input
 * (as the route's validation refuses it: no operation named), or a refusal of its limits or work (the gate names the op).
 */
export type FromBodyResult<T> = TaskResult<T> | { ok: false; body: BodyFailure } | { ok: false; input: TaskRefusal }

/** The body's input as `schema` outputs it (defaults applied), or the failure the route would answer. */
export function inputFromBody<S extends z.ZodType>({ blocks, format }: BodyBlocksPayload, schema: S): { ok: true; input: z.output<S> } | { ok: false; body: BodyFailure } | { ok: false; input: TaskRefusal } {
  const parsed = parseBody(joined(blocks), format)
  if (!parsed.ok) return { ok: false, body: parsed }
  if (!('value' in parsed)) throw new Error('a JSON body parsed to a value, not text')
  const checked = validatorCompiler({ schema, method: 'POST', url: '', httpPart: 'body' })(parsed.value) as { value?: z.output<S>; error?: Parameters<typeof validationRefusal>[0] }
  if (checked.error) return { ok: false, input: refusalData(validationRefusal(checked.error, 'body')) }
  return { ok: true, input: checked.value as z.output<S> }
}

/** The work's value, or the refusal it threw as data (a Refusal's class does not cross the thread); other errors rethrown. */
export function refusedAsData<T>(work: () => TaskResult<T>): TaskResult<T> {
  try {
    return work()
  } catch (err) {
    if (err instanceof Refusal && (err.code === 'invalid_input' || err.code === 'over_limit')) return { ok: false, refusal: refusalData(err) }
    throw err
  }
}

function refusalData(refusal: Refusal): TaskRefusal {
  const { issues, hints } = refusal.options
  return { code: refusal.code as TaskRefusal['code'], reason: refusal.message, ...(issues ? { issues } : {}), ...(hints ? { hints } : {}) }
}
