// A JSON value's canonical text for a pin: a small value on the loop, a large one in the mill, which gets it as JSON
// text: the body's own text when the value came as JsonText (a wide body member, body-parse/text-members.ts), else
// written 64 Ki characters per loop turn (json-writer.ts). Sorting, writing and depth-checking 200k keys cost ~0.5 s of
// the loop; cloning a 37k-key object back from the body thread and writing it again, 15–50 ms a stretch.
import { canonicalWithin } from '../engines/digest/canonical-json.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { jsonTextInTurns } from '../json/json-writer.js'
import { JsonText } from '../body-parse/text-members.js'

/** Values whose JSON text is at most this long are made canonical on the loop (a few thousand values at most). */
export const INLINE_JSON_CHARS = 16 * 1024

/** The canonical text of a value nested at most maxDepth levels, or null for one nested deeper. */
export async function canonicalPinJson(value: unknown, maxDepth: number, mill: Mill, owner: string | null): Promise<string | null> {
  const json = value instanceof JsonText ? value.text : await jsonTextInTurns(value)
  if (json.length <= INLINE_JSON_CHARS) return canonicalWithin(value instanceof JsonText ? value.value() : value, maxDepth)
  return mill.run('access.canonical_json', { json, maxDepth }, { timeoutMs: budgetOf(undefined), op: 'pin', owner })
}
