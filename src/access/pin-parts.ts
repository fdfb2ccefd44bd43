// A pin's content as rows of pin_parts (migrations 0008, 0009): written and read a part at a time with a loop turn
// between parts, so a pin stored before bodies were capped (megabytes) never holds the event loop for one long INSERT or
// SELECT; their bytes are decoded by their reader (pins.ts), in the mill when they are large.
import { createHash } from 'node:crypto'
import { utf8Chunks } from '../engines/digest/base64.js'
import type { Sql } from '../store/sql.js'
import { readByteParts, writeByteParts, type PartsOf } from '../store/byte-parts.js'

/** Characters per part: at most 768 KiB of UTF-8, a few milliseconds to encode, hash and INSERT. */
export const PIN_PART_CHARS = 256 * 1024

/** A text ready to store: its UTF-8 bytes in parts, their count and their SHA-256. */
export interface PinBytes {
  parts: Buffer[]
  size: number
  digest: string
}

/** Encodes and hashes a text (a /pin body's: at most the default body limit) a part at a time; a cut never splits a surrogate pair. */
export function pinBytesOf(text: string, partChars: number = PIN_PART_CHARS): PinBytes {
  const hash = createHash('sha256')
  const parts: Buffer[] = []
  let size = 0
  for (const part of utf8Chunks(text, partChars)) {
    hash.update(part)
    parts.push(part)
    size += part.byteLength
  }
  // An empty text is stored as one empty part.
  if (parts.length === 0) parts.push(Buffer.alloc(0))
  return { parts, size, digest: 'sha256:' + hash.digest('hex') }
}

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
