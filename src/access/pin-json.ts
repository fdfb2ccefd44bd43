// A JSON value's canonical text for a pin: a small value on the loop, a large one in the mill. The mill gets the value
// as JSON text written a slice at a time with a turn between slices: a 200k-key value's structured clone would be one
// long stretch of the loop, and one nested 2,000+ levels never arrives. Canonical form and depth check cost ~0.5 s of
// the loop for 200k keys.
import { createJsonWriter } from '../jobs/json.js'
import { canonicalWithin } from '../engines/digest/canonical-json.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { nextTurn } from '../store/turns.js'

/** Values whose JSON text is at most this long are made canonical on the loop (a few thousand values at most). */
export const INLINE_JSON_CHARS = 16 * 1024
/** JSON text written per loop turn for the mill: ~1–2 ms of the loop each. */
const SLICE_CHARS = 64 * 1024

/** The canonical text of a value nested at most maxDepth levels, or null for one nested deeper. */
export async function canonicalPinJson(value: unknown, maxDepth: number, mill: Mill): Promise<string | null> {
  const writer = createJsonWriter(value)
  const texts = [writer.next(INLINE_JSON_CHARS)]
  if (writer.done) return canonicalWithin(value, maxDepth)
  while (!writer.done) {
    await nextTurn()
    texts.push(writer.next(SLICE_CHARS))
  }
  return mill.run('access.canonical_json', { json: texts.join(''), maxDepth }, { timeoutMs: budgetOf(undefined), op: 'pin' })
}
