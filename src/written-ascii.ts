// JSON text a mill worker wrote as ASCII bytes and moved here (no copy on arrival), taken as a WrittenJson one part
// per turn of the loop: received as one 10 MB string it cost the loop ~7 ms in one stretch, and more as it grows.
import { nextTurn } from './store/turns.js'
import { WrittenJson } from './written-json.js'

/** Characters per part: ~0.3 ms of the loop each. */
export const ASCII_PART_BYTES = 1 << 20

/** ASCII bytes are their characters one for one, so latin1 decodes them exactly (and fastest). */
export async function writtenFromAscii(bytes: Uint8Array): Promise<WrittenJson> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const parts: string[] = []
  for (let at = 0; at < text.length; at += ASCII_PART_BYTES) {
    if (at > 0) await nextTurn()
    parts.push(text.toString('latin1', at, Math.min(at + ASCII_PART_BYTES, text.length)))
  }
  return new WrittenJson(parts)
}
