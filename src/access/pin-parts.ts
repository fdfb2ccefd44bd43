// A pin's content as rows of pin_parts (migrations 0008, 0009): written and read a part at a time with a loop turn
// between parts, so a pin stored before bodies were capped (megabytes) never holds the event loop for one long INSERT or
// SELECT; their bytes are decoded by their reader (pins.ts), in the mill when they are large.
import { hashedUtf8Parts, type HashedParts } from '../engines/digest/utf8-parts.js'
import type { Sql } from '../store/sql.js'
import { readByteParts, writeByteParts, type PartsOf } from '../store/byte-parts.js'

/** Characters per part: at most 768 KiB of UTF-8, a few milliseconds to encode, hash and INSERT. */
export const PIN_PART_CHARS = 256 * 1024

/** A text ready to store: its UTF-8 bytes in parts, their count and their SHA-256. */
export type PinBytes = HashedParts

/** Encodes and hashes a text a part at a time (in the caller's thread: pin-bytes.ts sends a long one to the mill). */
export const pinBytesOf = (text: string, partChars: number = PIN_PART_CHARS): PinBytes => hashedUtf8Parts(text, partChars)

const stored = (digest: string): PartsOf => ({ table: 'pin_parts', key: { digest } })

/**
 * Writes a pin's parts in order, a turn between statements. A part already there (a put of the same content at the
 * same time, or one cut short before its row) holds the same bytes, so it stays, written again at `now`: the orphan
 * sweep (pin-orphans.ts) leaves parts younger than an hour alone.
 */
export async function writePinParts(sql: Sql, digest: string, parts: readonly Buffer[], now: number): Promise<void> {
  await writeByteParts(sql, stored(digest), parts, now, true)
}

/**
 * A pin's stored parts as they are, a statement per part with a turn between; a part missing is left out (the digest
 * of what is there tells). Neither decoded nor hashed here: that is the reader's, off the loop when they are large.
 */
export async function readPinBytes(sql: Sql, digest: string): Promise<Buffer[]> {
  const parts: Buffer[] = []
  for await (const part of readByteParts(sql, stored(digest))) if (part) parts.push(part)
  return parts
}
