// A text to pin as the bytes to store: encoded and hashed on the loop when short, in the mill when long (a 15 MB
// two-byte text is 45 MB of UTF-8; encoding and hashing it on the loop held health checks ~90 ms in bench:hostile).
import { bufferOf } from '../json/bytes.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { PIN_PART_CHARS, pinBytesOf, type PinBytes } from './pin-parts.js'

/**
 * Texts of one part (at most 768 KiB of UTF-8: about a millisecond) are encoded on the loop, rather than wait in the
 * mill's queue behind heavy work: with the default 1 MiB body limit, nearly every pin.
 */
export const PIN_ON_LOOP_CHARS = PIN_PART_CHARS

export async function pinBytesFor(text: string, mill: Pick<Mill, 'run'>, owner: string | null): Promise<PinBytes> {
  if (text.length <= PIN_ON_LOOP_CHARS) return pinBytesOf(text)
  const hashed = await mill.run('access.pin_bytes', { text, partChars: PIN_PART_CHARS }, { timeoutMs: budgetOf(undefined), op: 'pin', owner })
  // A Buffer that crossed from a worker arrives as a Uint8Array over the moved memory.
  return { ...hashed, parts: hashed.parts.map(bufferOf) }
}
