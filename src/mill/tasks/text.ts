// Mill tasks of the text domain: diffs too large to compute on the event loop. JSON sides may come as their text (a
// wide body member) and are parsed and depth-checked here; the answer goes back written by /diff's response schema,
// as bytes that move to the loop, so it never crosses the thread boundary as thousands of objects.
import type { TaskTable } from '../types.js'
import { runDiff, type DiffOutcome, type DiffRequest } from '../../engines/diff/run.js'
import { jsonDepth } from '../../engines/digest/canonical-json.js'
import { answerBytes, type AnswerSchema } from '../../json/serializer.js'
import { moving } from '../moving.js'

export interface DiffTaskPayload {
  request: DiffRequest
  /** json mode: sides sent as JSON text instead of `request.a` / `request.b`. */
  texts?: { a?: string; b?: string }
  /** json mode: how deep a side sent as text may nest (the loop checks the others before sending). */
  maxDepth: number
  /** /diff's answer schema. */
  answer: AnswerSchema
}

export type DiffTaskOutcome =
  | { ok: true; answer: Uint8Array }
  | Exclude<DiffOutcome, { ok: true }>
  | { ok: false; tooDeep: { side: 'a' | 'b'; maxDepth: number } }

export function diffTask({ request, texts = {}, maxDepth, answer }: DiffTaskPayload): DiffTaskOutcome {
  const sides = { a: request.a, b: request.b }
  for (const side of ['a', 'b'] as const) {
    const text = texts[side]
    if (text === undefined) continue
    sides[side] = JSON.parse(text)
    if (jsonDepth(sides[side], maxDepth) > maxDepth) return { ok: false, tooDeep: { side, maxDepth } }
  }
  const outcome = runDiff({ ...request, ...sides })
  if (!outcome.ok) return outcome
  const bytes = answerBytes(answer, { ...outcome.report, ...('result' in outcome ? { result: outcome.result } : {}) })
  return moving({ ok: true, answer: bytes }, [bytes.buffer as ArrayBuffer])
}

export const textTasks = {
  'text.diff': diffTask,
} satisfies TaskTable
