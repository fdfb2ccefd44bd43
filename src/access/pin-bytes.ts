// A text to pin as the bytes to store: encoded and hashed on the loop when short, in the mill when long (a 15 MB
// two-byte text is 45 MB of UTF-8; encoding and hashing it on the loop held health checks ~90 ms in bench:hostile).
import { bufferOf } from '../json/bytes.js'
import { ON_LOOP_WORK_MAX_BYTES } from '../json/loop-rule.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { PIN_PART_CHARS, pinBytesOf, type PinBytes } from './pin-parts.js'

/**
 * Texts whose UTF-8 is within the loop's linear work (ON_LOOP_WORK_MAX_BYTES; a UTF-16 unit is at most 3 bytes) are
 * encoded here; longer ones on the mill's spare worker, which heavy work never holds, so they never wait behind it.
 */
export const PIN_ON_LOOP_CHARS = Math.floor(ON_LOOP_WORK_MAX_BYTES / 3)

export async function pinBytesFor(text: string, mill: Pick<Mill, 'run'>, owner: string | null): Promise<PinBytes> {
  if (text.length <= PIN_ON_LOOP_CHARS) return pinBytesOf(text)
  const hashed = await mill.run('access.pin_bytes', { text, partChars: PIN_PART_CHARS }, { timeoutMs: budgetOf(undefined), op: 'pin', owner })
  // A Buffer that crossed from a worker arrives as a Uint8Array over the moved memory.
  return { ...hashed, parts: hashed.parts.map(bufferOf) }
}
