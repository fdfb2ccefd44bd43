// Mill tasks of the text domain: diffs too large to compute on the event loop. JSON sides may come as their text (a
// wide body member) and are parsed and depth-checked here; the answer's wide parts go back as JSON text, written as
// /diff's response schema writes them, so neither crosses the thread boundary as thousands of objects.
import type { TaskTable } from '../types.js'
import { runDiff, type DiffOutcome, type DiffRequest } from '../../engines/diff/run.js'
import { hunksJson, patchJson } from '../../engines/diff/report-json.js'
import { jsonDepth } from '../../engines/digest/canonical-json.js'
import type { DiffMode, DiffReport } from '../../engines/diff/diff.js'

export interface DiffTaskPayload {
  request: DiffRequest
  /** json mode: sides sent as JSON text instead of `request.a` / `request.b`. */
  texts?: { a?: string; b?: string }
  /** json mode: how deep a side sent as text may nest (the loop checks the others before sending). */
  maxDepth: number
}

/** The report with its wide members as JSON text; `result` (json mode with a patch) too. */
export type WrittenDiffReport = Omit<DiffReport, 'hunks' | 'patch'> & { mode: DiffMode; hunks: string; patch?: string }
export type DiffTaskOutcome =
  | { ok: true; report: WrittenDiffReport; result?: string }
  | Exclude<DiffOutcome, { ok: true }>
  | { ok: false; tooDeep: { side: 'a' | 'b'; maxDepth: number } }

export function diffTask({ request, texts = {}, maxDepth }: DiffTaskPayload): DiffTaskOutcome {
  const sides = { a: request.a, b: request.b }
  for (const side of ['a', 'b'] as const) {
    const text = texts[side]
    if (text === undefined) continue
    sides[side] = JSON.parse(text)
    if (jsonDepth(sides[side], maxDepth) > maxDepth) return { ok: false, tooDeep: { side, maxDepth } }
  }
  const outcome = runDiff({ ...request, ...sides })
  if (!outcome.ok) return outcome
  const { hunks, patch, ...rest } = outcome.report
  const report: WrittenDiffReport = { ...rest, hunks: hunksJson(hunks), ...(patch !== undefined ? { patch: patchJson(patch) } : {}) }
  return { ok: true, report, ...('result' in outcome ? { result: JSON.stringify(outcome.result) } : {}) }
}

export const textTasks = {
  'text.diff': diffTask,
} satisfies TaskTable
