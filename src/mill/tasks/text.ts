// Mill tasks of the text domain: diffs too large to compute on the event loop, and /diff from a large body's bytes. The
// answer goes back written by /diff's response schema, as bytes that move to the loop, so it never crosses the thread
// boundary as thousands of objects.
import type { TaskTable } from '../types.js'
import { runDiff, type DiffOutcome, type DiffRequest } from '../../engines/diff/run.js'
import { checkDiffLimits, diffInput, diffOnTheLoop, diffRefusal, diffRequest } from '../../inputs/diff.js'
import { answerFromBody, NEEDS_HEAVY, type AnswerFromBody, type FromBodyResult } from './from-body.js'
import { answerBytes, type AnswerSchema } from '../../json/serializer.js'
import { moving } from '../moving.js'

export interface DiffTaskPayload {
  request: DiffRequest
  /** /diff's answer schema. */
  answer: AnswerSchema
}

export type DiffTaskOutcome = { ok: true; answer: Uint8Array } | Exclude<DiffOutcome, { ok: true }>

export function diffTask({ request, answer }: DiffTaskPayload): DiffTaskOutcome {
  const outcome = runDiff(request)
  if (!outcome.ok) return outcome
  const bytes = answerBytes(answer, diffAnswer(outcome))
  return moving({ ok: true, answer: bytes }, [bytes.buffer as ArrayBuffer])
}

/**
 * A diff inside the loop's limits whose answer may pass what the loop writes (light work): worked as on the loop
 * (`heavy` when the loop would send it on), written here.
 */
export function lightDiffTask({ request, answer }: DiffTaskPayload & { request: { maxResultWeight: number } }): DiffTaskOutcome | 'heavy' {
  const outcome = diffOnTheLoop(request)
  if (outcome === 'heavy' || !outcome.ok) return outcome
  const bytes = answerBytes(answer, diffAnswer(outcome))
  return moving({ ok: true as const, answer: bytes }, [bytes.buffer as ArrayBuffer])
}

const diffAnswer = (outcome: Extract<DiffOutcome, { ok: true }>) => ({ ...outcome.report, ...('result' in outcome ? { result: outcome.result } : {}) })

export const textTasks = {
  'text.diff': diffTask,
  'text.diffLight': lightDiffTask,
  // /diff from a large body's bytes: read as its route reads it, then diffed and written here.
  'text.diffBody': (payload: AnswerFromBody & { maxResultWeight: number }): FromBodyResult<Uint8Array> => answerFromBody(payload, diffInput, (input) => {
    checkDiffLimits(input)
    const request = diffRequest(input, payload.maxResultWeight)
    const onLoop = diffOnTheLoop(request)
    if (onLoop === 'heavy' && !payload.mayWorkHeavy) return NEEDS_HEAVY
    const outcome = onLoop === 'heavy' ? runDiff(request) : onLoop
    if (!outcome.ok) throw diffRefusal(outcome)
    return { ok: true, value: diffAnswer(outcome), warnings: [] }
  }),
} satisfies TaskTable
