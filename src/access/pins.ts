// The pins table: content-addressed, immutable blobs. The digest is SHA-256 of the stored bytes and is re-checked on read.
import { createHash } from 'node:crypto'
import { Refusal } from '../refusal.js'
import type { Db } from '../store/index.js'
import { perDatabase } from '../store/repository.js'
import { keysetQuery } from '../store/keyset.js'

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
  content: Buffer
  /** sha256 of the bytes as stored now; differs from record.digest if they were changed behind the store's back. */
  actualDigest: string
}

export interface PinRepository {
  /** Stores the bytes unless the digest is known; the first pin's label, media type and time stay. */
  put(content: Buffer, mediaType: PinMediaType, label: string | null, now: number): { record: PinRecord; created: boolean }
  get(digest: string): PinRead | null
  count(): number
  /** Newest first by (created_at, digest), without content: up to limit + 1 pins after a keyset position. */
  page(after: readonly (string | number)[] | null, limit: number): PinRecord[]
}

export const digestOf = (content: Uint8Array): string => 'sha256:' + createHash('sha256').update(content).digest('hex')

export const PIN_DIGEST = /^sha256:[0-9a-f]{64}$/

interface PinRow extends PinRecord {
  content: Buffer
}

/** One repository per database, its statements prepared once. */
export const pinRepository = perDatabase(createPinRepository)

function createPinRepository(db: Db): PinRepository {
  const insert = db.prepare<[string, Buffer, string, string | null, number, string]>(
    'INSERT INTO pins (digest, content, media_type, label, size, created_at) VALUES (?, ?, ?, ?, ?, ?) ' +
      'ON CONFLICT (digest) DO NOTHING',
  )
  const meta = db.prepare<[string], PinRecord>('SELECT digest, size, media_type, label, created_at FROM pins WHERE digest = ?')
  const full = db.prepare<[string], PinRow>(
    'SELECT digest, content, size, media_type, label, created_at FROM pins WHERE digest = ?',
  )
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM pins')
  const listed = keysetQuery<PinRecord>(db, {
    select: 'SELECT digest, size, media_type, label, created_at FROM pins',
    key: ['created_at', 'digest'],
    order: 'desc',
  })

  return {
    put(content, mediaType, label, now) {
      const digest = digestOf(content)
      return db.transaction(() => {
        const created = insert.run(digest, content, mediaType, label, content.byteLength, new Date(now).toISOString()).changes === 1
        return { record: meta.get(digest)!, created }
      })()
    },
    get(digest) {
      const row = full.get(digest)
      if (!row) return null
      const { content, ...record } = row
      return { record, content, actualDigest: digestOf(content) }
    },
    count: () => count.get()!.n,
    page: (after, limit) => listed({}, after, limit),
  }
}

/** A pin's content, its stored bytes hashed again: unknown is not_found, bytes that no longer match are withheld (conflict). */
export function readPin(repo: PinRepository, digest: string) {
  const found = repo.get(digest)
  if (!found) throw new Refusal('not_found', `nothing is pinned under ${digest}`)
  if (found.actualDigest !== digest) {
    throw new Refusal(
      'conflict',
      `the bytes stored under ${digest} now hash to ${found.actualDigest}: the pin is corrupt and its content is withheld`,
      { hints: { digest, actual_digest: found.actualDigest, verified: false } },
    )
  }
  const content = found.content.toString('utf8')
  return {
    ...found.record,
    verified: true as const,
    content,
    ...(found.record.media_type === 'application/json' ? { json: JSON.parse(content) as unknown } : {}),
  }
}
