// The pins table: content-addressed, immutable texts. The digest is SHA-256 of the stored bytes and is re-checked on read;
// the bytes live in pin_parts (pin-parts.ts), so listings never touch them.
import { Refusal } from '../http/refusal.js'
import { keysetPages } from '../store/keyset.js'
import { perDatabase } from '../store/repository.js'
import type { Sql } from '../store/sql.js'
import { readPinParts, writePinParts, type PinBytes } from './pin-parts.js'
import { createPinOrphanSweep } from './pin-orphans.js'

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
  /** The stored bytes as UTF-8 text. */
  text: string
  /** sha256 of the bytes as stored now; differs from record.digest if they were changed behind the store's back. */
  actualDigest: string
}

export interface PinRepository {
  /** Stores the bytes (pinBytesOf) unless the digest is known; the first pin's label, media type and time stay. */
  put(bytes: PinBytes, mediaType: PinMediaType, label: string | null, now: number): Promise<{ record: PinRecord; created: boolean }>
  get(digest: string): Promise<PinRead | null>
  count(): Promise<number>
  /** Newest first by (created_at, digest), without content: up to limit + 1 pins after a keyset position. */
  page(after: readonly (string | number)[] | null, limit: number): Promise<PinRecord[]>
  /** The newest pins, without content (what a client is shown first). */
  latest(limit: number): Promise<PinRecord[]>
  /** Removes parts left without a row by a crash, looking at the next slice of part keys (pin-orphans.ts); answers how many went. */
  sweepOrphans(now: number): Promise<number>
}

export const PIN_DIGEST = /^sha256:[0-9a-f]{64}$/

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
    async get(digest) {
      const row = await sql.get<PinRow>(`SELECT ${PIN_COLUMNS} FROM pins WHERE digest = ?`, [digest])
      if (!row) return null
      return { record: recordOf(row), ...(await readPinParts(sql, digest)) }
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

/** A pin's content, its stored bytes hashed again: unknown is not_found, bytes that no longer match are withheld (conflict). */
export async function readPin(repo: PinRepository, digest: string) {
  const found = await repo.get(digest)
  if (!found) throw new Refusal('not_found', `nothing is pinned under ${digest}`)
  if (found.actualDigest !== digest) {
    throw new Refusal(
      'conflict',
      `the bytes stored under ${digest} now hash to ${found.actualDigest}: the pin is corrupt and its content is withheld`,
      { hints: { digest, actual_digest: found.actualDigest, verified: false } },
    )
  }
  const content = found.text
  return {
    ...found.record,
    verified: true as const,
    content,
    ...(found.record.media_type === 'application/json' ? { json: JSON.parse(content) as unknown } : {}),
  }
}
