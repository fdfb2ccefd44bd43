// A JSON value's canonical text for a pin, as the bytes to store: a small value on the loop, a large one in the mill
// (made canonical, encoded and hashed there, one trip), which gets it as JSON text written 64 Ki characters per loop
// turn (json-writer.ts): values from /run, /cli and MCP calls; a large body's never comes here (/pin reads it in the
// mill, Operation.fromBody). Sorting, writing and depth-checking 200k keys cost ~0.5 s of the loop.
import { canonicalWithin } from '../engines/digest/canonical-json.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { jsonTextInTurns } from '../json/json-writer.js'
import { bufferOf } from '../json/bytes.js'
import { PIN_PART_CHARS, pinBytesOf, type PinBytes } from './pin-parts.js'

/** Values whose JSON text is at most this long are made canonical on the loop (a few thousand values at most). */
export const INLINE_JSON_CHARS = 16 * 1024

/** The canonical text of a value nested at most maxDepth levels as the bytes to pin, or null for one nested deeper. */
export async function canonicalPinBytes(value: unknown, maxDepth: number, mill: Pick<Mill, 'run'>, owner: string | null): Promise<PinBytes | null> {
  const json = await jsonTextInTurns(value)
  if (json.length <= INLINE_JSON_CHARS) {
    const text = canonicalWithin(value, maxDepth)
    return text === null ? null : pinBytesOf(text)
  }
  const hashed = await mill.run('access.canonical_json', { json, maxDepth, partChars: PIN_PART_CHARS }, { timeoutMs: budgetOf(undefined), op: 'pin', owner })
  // A Buffer that crossed from a worker arrives as a Uint8Array over the moved memory.
  return hashed && { ...hashed, parts: hashed.parts.map(bufferOf) }
}
