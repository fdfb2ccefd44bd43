// The pins table: content-addressed, immutable texts. The digest is SHA-256 of the stored bytes and is re-checked on read;
// the bytes live in pin_parts (pin-parts.ts), so listings never touch them.
import { Refusal } from '../http/refusal.js'
import { keysetPages } from '../store/keyset.js'
import { perDatabase } from '../store/repository.js'
import type { Sql } from '../store/sql.js'
import { readPinBytes, writePinParts, type PinBytes } from './pin-parts.js'
import { createPinOrphanSweep } from './pin-orphans.js'
import { budgetOf, type Mill } from '../mill/pool.js'
import { movable } from '../mill/moving.js'
import { pinRead, type PinReadOutcome } from '../mill/tasks/access.js'
import { bufferOf, JsonBytes } from '../json/bytes.js'
import { ON_LOOP_WORK_MAX_BYTES } from '../json/loop-rule.js'

export const PIN_MEDIA_TYPES = ['text/plain', 'application/json'] as const
export type PinMediaType = (typeof PIN_MEDIA_TYPES)[number]

export interface PinRecord {
  digest: string
  size: number
  media_type: PinMediaType
  label: string | null
  created_at: string
}

export interface PinRead {
  record: PinRecord
  /** The stored parts in order, as they are (neither decoded nor hashed). */
  parts: Buffer[]
}

export interface PinRepository {
  /** Stores the bytes (pinBytesOf) unless the digest is known; the first pin's label, media type and time stay. */
  put(bytes: PinBytes, mediaType: PinMediaType, label: string | null, now: number): Promise<{ record: PinRecord; created: boolean }>
  /** The pin with its parts; `found` runs once the row is read, before the parts are (a pin read reserves memory there). */
  get(digest: string, found?: (record: PinRecord) => void): Promise<PinRead | null>
  count(): Promise<number>
  /** Newest first by (created_at, digest), without content: up to limit + 1 pins after a keyset position. */
  page(after: readonly (string | number)[] | null, limit: number): Promise<PinRecord[]>
  /** The newest pins, without content (what a client is shown first). */
  latest(limit: number): Promise<PinRecord[]>
  /** Removes parts left without a row by a crash, looking at the next slice of part keys (pin-orphans.ts); answers how many went. */
  sweepOrphans(now: number): Promise<number>
}

export { PIN_DIGEST } from '../inputs/pin.js'

type PinRow = Omit<PinRecord, 'size'> & { size: number | string }

const PIN_COLUMNS = 'digest, size, media_type, label, created_at'

/** One repository per database. */
export const pinRepository = perDatabase(createPinRepository)

function createPinRepository(sql: Sql): PinRepository {
  const listed = keysetPages<PinRow>(sql, { select: `SELECT ${PIN_COLUMNS} FROM pins`, key: ['created_at', 'digest'], order: 'desc' })
  const sweepOrphans = createPinOrphanSweep(sql)

  return {
    async put({ parts, size, digest }, mediaType, label, now) {
      const standing = await sql.get<PinRow>(`SELECT ${PIN_COLUMNS} FROM pins WHERE digest = ?`, [digest])
      if (standing) return { record: recordOf(standing), created: false }
      // Parts first: a row is only ever read with all its parts. Content-addressed and never changed: the one INSERT
      // that stores a digest answers its row; every other put (here or on another replica) reads the pin that stands.
      await writePinParts(sql, digest, parts, now)
      const inserted = await sql.get<PinRow>(
        `INSERT INTO pins (digest, media_type, label, size, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (digest) DO NOTHING RETURNING ${PIN_COLUMNS}`,
        [digest, mediaType, label, size, new Date(now).toISOString()],
      )
      if (inserted) return { record: recordOf(inserted), created: true }
      const stored = await sql.get<PinRow>(`SELECT ${PIN_COLUMNS} FROM pins WHERE digest = ?`, [digest])
      return { record: recordOf(stored!), created: false }
    },
    async get(digest, found) {
      const row = await sql.get<PinRow>(`SELECT ${PIN_COLUMNS} FROM pins WHERE digest = ?`, [digest])
      if (!row) return null
      const record = recordOf(row)
      found?.(record)
      return { record, parts: await readPinBytes(sql, digest) }
    },
    async count() {
      const row = await sql.get<{ n: number | string }>('SELECT count(*) AS n FROM pins')
      return Number(row?.n ?? 0)
    },
    page: async (after, limit) => (await listed({}, after, limit)).map(recordOf),
    latest: async (limit) =>
      (await sql.all<PinRow>(`SELECT ${PIN_COLUMNS} FROM pins ORDER BY created_at DESC, digest LIMIT ?`, [limit])).map(recordOf),
    sweepOrphans,
  }
}

/** PostgreSQL answers a BIGINT size as text. */
const recordOf = (row: PinRow): PinRecord => ({ ...row, size: Number(row.size) })

/** Where a large pin is hashed and written: the mill, as work of a request (named in refusals, in its owner's share). */
export interface PinReader {
  mill: Pick<Mill, 'run'>
  owner: string | null
  op: string
  /**
   * Reserves memory for the read's answer until the door has sent it, or throws `occupied` (req.holdAnswer: the memory
   * admission). Every door of a pin read passes one, so the reservation follows the pin's size wherever it is read.
   */
  hold(bytes: number): void
}

/**
 * What a pin read holds until its answer is sent, from the pin's stored size: the stored bytes, and the content written
 * as a JSON string beside them, at worst 6 bytes a stored byte (a control character as \u00XX); the record and the
 * envelope around them are small. The admission caps it at a large answer's share, what every read reserved before.
 */
export const pinReadBytes = (size: number): number => PIN_READ_RECORD_BYTES + 7 * size

const PIN_READ_RECORD_BYTES = 4 * 1024

/** A pin read back and hashed again, its bytes matching its digest. */
export interface VerifiedPin {
  record: PinRecord
  /** The stored bytes, as they are. */
  stored: Buffer[]
  /** The text's length in UTF-16 units (what a reader that needs it as a string holds). */
  chars: number
  /** The text as a JSON string's bytes. */
  content: JsonBytes
}

/** A pin's bytes hashed (and with `write` written) on the loop when small, else in the mill; null when nothing is pinned. */
export async function hashedPin(
  repo: PinRepository, digest: string, reader: PinReader, write: boolean,
): Promise<{ record: PinRecord; read: PinReadOutcome } | null> {
  // Reserved once the size is known and before the bytes are read: a client reading many small pins at once is not
  // refused as if each were the largest, and reads of a large one still run out of their share.
  const found = await repo.get(digest, (record) => reader.hold(pinReadBytes(record.size)))
  if (!found) return null
  const bytes = found.parts.reduce((n, part) => n + part.byteLength, 0)
  // Written answers splice a JSON pin's bytes in as they are: they must be one JSON value.
  const json = write && found.record.media_type === 'application/json'
  if (bytes <= ON_LOOP_WORK_MAX_BYTES) return { record: found.record, read: pinRead({ parts: found.parts, digest, write, json }) }
  // The parts move to the worker, and back with the answer: megabytes are never copied, decoded or escaped here.
  const { views, transfer } = movable(found.parts)
  const read = await reader.mill.run('access.pin_read', { parts: views, digest, write, json }, {
    timeoutMs: budgetOf(undefined), op: reader.op, owner: reader.owner, transfer,
  })
  return { record: found.record, read }
}

/** A pin's content, its stored bytes hashed again: unknown is not_found, bytes that no longer match are withheld (conflict). */
export async function readPin(repo: PinRepository, digest: string, reader: PinReader): Promise<VerifiedPin> {
  const found = await hashedPin(repo, digest, reader, true)
  if (!found) throw new Refusal('not_found', `nothing is pinned under ${digest}`)
  const { record, read } = found
  if (read.actualDigest !== digest) {
    throw new Refusal(
      'conflict',
      `the bytes stored under ${digest} now hash to ${read.actualDigest}: the pin is corrupt and its content is withheld`,
      { hints: { digest, actual_digest: read.actualDigest, verified: false } },
    )
  }
  if (read.jsonValid === false) {
    throw new Refusal('conflict', `the bytes stored under ${digest} are not one JSON value, as the pin's media type says: its content is withheld`, {
      hints: { digest, media_type: record.media_type, verified: false },
    })
  }
  return { record, stored: read.stored.map(bufferOf), chars: read.chars, content: new JsonBytes(read.content ?? []) }
}

/**
 * The members a pin read answers beside its record, written, to splice in (splicedAnswer): `content`, and for a JSON pin
 * `json`, its stored bytes as they are: they are the value's canonical text, so nothing parses them. (Written from a
 * parsed value, an object's array-index keys came first, in numeric order; the canonical text keeps JCS's order.)
 */
export function pinMembers(pin: VerifiedPin): { content: JsonBytes; json: JsonBytes | null } {
  return { content: pin.content, json: pin.record.media_type === 'application/json' ? new JsonBytes(pin.stored) : null }
}
