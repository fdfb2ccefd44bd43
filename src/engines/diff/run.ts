// One /diff request as a pure function of plain data, so it runs the same on the event loop or in a mill worker.
import type { JsonValue } from '../digest/canonical-json.js'
import { diffJsonValues, diffText, type DiffMode, type DiffReport } from './diff.js'
import { applyJsonPatch, JsonPatchBudgetError, JsonPatchError, jsonWeight, type JsonPatchOperation } from './json-patch.js'

export interface DiffRequest {
  /** Strings in text modes; JSON values in json mode. */
  a: unknown
  b?: unknown
  /** json mode, instead of b: applied to a, and the result diffed. */
  patch?: JsonPatchOperation[]
  mode: DiffMode
  context: number
  maxWork: number
  /** json mode with patch: the most the patched document may weigh (see applyJsonPatch). */
  maxResultWeight?: number
}

/** A patch that cannot be applied is an answer about the input, not a failure: it travels back as data. */
export type DiffOutcome =
  | { ok: true; report: DiffReport & { mode: DiffMode }; result?: JsonValue }
  | { ok: false; patchError: { index: number; message: string } }
  | { ok: false; overBudget: { index: number; maxWeight: number } }

export function runDiff(request: DiffRequest): DiffOutcome {
  const options = { maxWork: request.maxWork }
  if (request.mode !== 'json') {
    const report = diffText(request.a as string, request.b as string, request.mode, request.context, options)
    return { ok: true, report: { mode: request.mode, ...report } }
  }
  const a = request.a as JsonValue
  let b = request.b as JsonValue
  if (request.patch !== undefined) {
    try {
      b = applyJsonPatch(a, request.patch, request.maxResultWeight)
    } catch (err) {
      if (err instanceof JsonPatchBudgetError) return { ok: false, overBudget: { index: err.index, maxWeight: err.maxWeight } }
      if (!(err instanceof JsonPatchError)) throw err
      return { ok: false, patchError: { index: err.index, message: err.message } }
    }
  }
  const report = diffJsonValues(a, b, request.context, options)
  return { ok: true, report: { mode: 'json', ...report }, ...(request.patch !== undefined ? { result: b } : {}) }
}

/** Rough size of a request (JSON weight: nodes × 8 + characters), stopping once past `limit`. */
export function requestWeight(request: Pick<DiffRequest, 'a' | 'b' | 'patch'>, limit: number): number {
  return jsonWeight([request.a, request.b, request.patch], limit)
}
