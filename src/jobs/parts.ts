// A job's input or answer as rows of job_parts (migrations 0007, 0073): its bytes in parts, one short statement per
// part with a loop turn between (src/store/byte-parts.ts), so a 14 MB text never holds the event loop in one statement.
import { orphanSweep } from '../store/orphan-sweep.js'
import type { Sql } from '../store/sql.js'
import { deleteByteParts, PART_BYTES, readByteParts, writeByteParts, type PartsOf } from '../store/byte-parts.js'
import { JsonBytes } from '../json/bytes.js'

export type PartKind = 'input' | 'result'

export { ORPHAN_AFTER_MS } from '../store/orphan-sweep.js'

const partsOf = (jobId: string, kind: PartKind): PartsOf => ({ table: 'job_parts', key: { job_id: jobId, kind } })

/** Writes parts in order as they come (an input's JSON text, an answer's bytes), a turn between statements. */
export async function writeParts(sql: Sql, jobId: string, kind: PartKind, parts: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string>, now: number): Promise<void> {
  await writeByteParts(sql, partsOf(jobId, kind), encoded(parts), now)
}

async function* encoded(parts: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const part of parts) {
    if (typeof part !== 'string') yield* cut(part)
    else yield Buffer.from(part)
  }
}

/** An answer's bytes (one buffer of megabytes from the mill) as parts of at most PART_BYTES, without a copy. */
function* cut(bytes: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength || at === 0; at += PART_BYTES) yield bytes.subarray(at, at + PART_BYTES)
}

/** The stored input or answer as its JSON bytes (an answer's as a reply sends them), or null when it has no parts (none yet, or part 0 removed first). */
export async function readBytes(sql: Sql, jobId: string, kind: PartKind): Promise<JsonBytes | null> {
  const chunks: Buffer[] = []
  for await (const part of readByteParts(sql, partsOf(jobId, kind))) {
    if (part === null && chunks.length === 0) return null
    if (part === null) throw new Error(`job ${jobId}: a ${kind} part is missing`)
    chunks.push(part)
  }
  return chunks.length === 0 ? null : new JsonBytes(chunks)
}

/**
 * Removes a job's parts (of one kind, or all), a part per statement with a turn between. Part 0 goes first: a removal
 * cut short leaves no text that reads as whole, and the purge's orphan sweep takes the rest.
 */
export async function deleteParts(sql: Sql, jobId: string, kind?: PartKind): Promise<void> {
  for (const k of kind ? [kind] : (['input', 'result'] as const)) await deleteByteParts(sql, partsOf(jobId, k))
}

/**
 * Finds parts that outlived their job row (purged or deleted, or never written: a crash between parts and row, or
 * in a purge) and are older than ORPHAN_AFTER_MS, the next SWEEP_PARTS part keys a call (store/orphan-sweep.ts).
 */
export function createOrphanSweep(sql: Sql) {
  return orphanSweep<{ job_id: string; kind: PartKind; seq: number | string; created_at: number | string; live: string | null }>(sql, {
    select: `SELECT p.job_id, p.kind, p.seq, p.created_at, j.id AS live
      FROM job_parts p LEFT JOIN jobs j ON j.id = p.job_id AND j.purged_at IS NULL`,
    key: ['p.job_id', 'p.kind', 'p.seq'],
    keyOf: (row) => [row.job_id, row.kind, Number(row.seq)],
    ownerOf: (row) => row.job_id,
  })
}
