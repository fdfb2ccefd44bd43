// The mill task of request bodies: a large body arrives in blocks moved here from the loop and is decoded, scanned and
// parsed under the host's rules (body-parse/formats.ts); its value, or its refusal as data, goes back.
import type { TaskTable } from '../types.js'
import { joined, parseBody, textOf, type BodyFormat, type BodyOutcome } from '../../body-parse/formats.js'
import { hasAtMostValues, LOOP_BODY_MAX_VALUES } from '../../json/loop-rule.js'

/** The deepest value sent back by structured clone (1,800 levels still arrive; 2,000 do not). */
export const CLONE_MAX_DEPTH = 512

export interface BodyParsePayload {
  /** The body's bytes in order, moved here (RunOptions.transfer). */
  blocks: Uint8Array[]
  format: BodyFormat
}

export function parseBodyBlocks({ blocks, format }: BodyParsePayload): BodyOutcome {
  const bytes = joined(blocks)
  const outcome = parseBody(bytes, format)
  if (!('value' in outcome) || format.kind !== 'json') return outcome
  // The receiving side's deserializer recurses: from about 2,000 levels the loop's thread gets a messageerror (stack
  // overflow) and never the value. A deep value goes back as its checked text, for JSON.parse there.
  if (outcome.depth! > CLONE_MAX_DEPTH) return overLoop({ ok: true, json: textOf(bytes) }, outcome.value)
  return overLoop(outcome, outcome.value)
}

/** Marks an outcome whose value, as it reaches the loop, holds more values than a body parsed there may. */
function overLoop<T extends BodyOutcome & { ok: true }>(outcome: T, value: unknown): T {
  if (!hasAtMostValues(value, LOOP_BODY_MAX_VALUES)) outcome.overLoop = true
  return outcome
}

export const bodyTasks = {
  'body.parse': parseBodyBlocks,
} satisfies TaskTable
