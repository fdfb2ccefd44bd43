// A pin's content as rows of pin_parts (migrations 0008, 0009): encoded, hashed, written and read a part at a time with a loop
// turn between parts, so a 15 MB pin never holds the event loop for one long INSERT, SELECT, hash or decode.
import { createHash } from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import { utf8Chunks } from '../engines/digest/base64.js'
import type { Sql } from '../store/sql.js'
import { nextTurn } from '../store/turns.js'

/** Characters per part: at most 768 KiB of UTF-8, a few milliseconds to encode, hash and INSERT. */
export const PIN_PART_CHARS = 256 * 1024

/** A text ready to store: its UTF-8 bytes in parts, their count and their SHA-256. */
export interface PinBytes {
  parts: Buffer[]
  size: number
  digest: string
}

/** Encodes and hashes a text a part at a time, a turn between parts; a cut never splits a surrogate pair. */
export async function pinBytesOf(text: string, partChars: number = PIN_PART_CHARS): Promise<PinBytes> {
  const hash = createHash('sha256')
  const parts: Buffer[] = []
  let size = 0
  for (const part of utf8Chunks(text, partChars)) {
    if (parts.length > 0) await nextTurn()
    hash.update(part)
    parts.push(part)
    size += part.byteLength
  }
  // An empty text is stored as one empty part.
  if (parts.length === 0) parts.push(Buffer.alloc(0))
  return { parts, size, digest: 'sha256:' + hash.digest('hex') }
}

/**
 * Writes a pin's parts in order, a turn between statements. A part already there (a put of the same content at the
 * same time, or one cut short before its row) holds the same bytes, so it stays, written again at `now`: the orphan
 * sweep (pin-orphans.ts) leaves parts younger than an hour alone.
 */
export async function writePinParts(sql: Sql, digest: string, parts: readonly Buffer[], now: number): Promise<void> {
  for (let seq = 0; seq < parts.length; seq++) {
    if (seq > 0) await nextTurn()
    await sql.run(
      `INSERT INTO pin_parts (digest, seq, created_at, content) VALUES (?, ?, ?, ?)
       ON CONFLICT (digest, seq) DO UPDATE SET created_at = excluded.created_at`,
      [digest, seq, now, parts[seq]],
    )
  }
}

/** A pin's stored bytes as UTF-8 text and their SHA-256 as they are now; a statement per part with a turn between. */
export async function readPinParts(sql: Sql, digest: string): Promise<{ text: string; actualDigest: string }> {
  const row = await sql.get<{ last: number | string | null }>('SELECT MAX(seq) AS last FROM pin_parts WHERE digest = ?', [digest])
  const last = row?.last == null ? -1 : Number(row.last)
  const hash = createHash('sha256')
  // A part may end inside a character (a part migrated or changed behind the store's back): the decoder carries it over.
  const decoder = new StringDecoder('utf8')
  const texts: string[] = []
  for (let seq = 0; seq <= last; seq++) {
    if (seq > 0) await nextTurn()
    const part = await sql.get<{ content: Buffer }>('SELECT content FROM pin_parts WHERE digest = ? AND seq = ?', [digest, seq])
    if (!part) continue
    hash.update(part.content)
    texts.push(decoder.write(part.content))
  }
  texts.push(decoder.end())
  return { text: texts.join(''), actualDigest: 'sha256:' + hash.digest('hex') }
}
