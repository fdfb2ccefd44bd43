// The wide parts of a diff answer as JSON text, written where the diff ran (a mill worker): a 37k-key object against
// {} makes 37k patch operations and 37k hunk lines, whose structured clone back cost the loop 15–50 ms in one stretch
// and whose writing as much again. The text is what /diff's response schema writes (fast-json-stringify): declared
// members in the schema's order, required ones first, optional ones left out when undefined; the caller splices it in.
import type { Hunk } from './hunks.js'
import type { JsonPatchOperation } from './json-patch.js'

const str = JSON.stringify

/** `hunks` as the answer writes it: { a_start, a_count, b_start, b_count, header, parts: [{ kind, text }] }. */
export function hunksJson(hunks: readonly Hunk[]): string {
  const out: string[] = []
  for (const h of hunks) {
    const parts = h.parts.map((p) => `{"kind":${str(p.kind)},"text":${str(p.text)}}`).join(',')
    out.push(`{"a_start":${h.a_start},"a_count":${h.a_count},"b_start":${h.b_start},"b_count":${h.b_count},"header":${str(h.header)},"parts":[${parts}]}`)
  }
  return `[${out.join(',')}]`
}

/** `patch` as the answer writes it: { op, path, from?, value? } (op and path required, then the optional ones). */
export function patchJson(patch: readonly JsonPatchOperation[]): string {
  const out: string[] = []
  for (const operation of patch) {
    const { from, value } = operation as { from?: string; value?: unknown }
    let text = `{"op":${str(operation.op)},"path":${str(operation.path)}`
    if (from !== undefined) text += `,"from":${str(from)}`
    if (value !== undefined) text += `,"value":${str(value)}`
    out.push(text + '}')
  }
  return `[${out.join(',')}]`
}
