// Bytes stored as rows of parts, one short statement per part with a turn of the loop between: a job's input and
// answer (job_parts) and a pin's content (pin_parts) alike, so megabytes never hold the loop in one long INSERT,
// SELECT or DELETE.
import type { Sql } from './sql.js'
import { inTurns, upTo } from '../sched/turns.js'

/** Bytes of a part: a few milliseconds to INSERT on SQLite. */
export const PART_BYTES = 256 * 1024

/** The stored thing's parts: their table, and the key columns and values that name it (constants of the callers). */
export interface PartsOf {
  table: 'job_parts' | 'pin_parts'
  key: Readonly<Record<string, string>>
}

const whereOf = (of: PartsOf) => Object.keys(of.key).map((column) => `${column} = ?`).join(' AND ')

/**
 * Writes parts in order as they come, a turn between statements. `keep`: a part already there holds the same bytes
 * (content-addressed), so it stays, written again at `now`.
 */
export async function writeByteParts(
  sql: Sql, of: PartsOf, parts: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, now: number, keep = false,
): Promise<void> {
  const columns = Object.keys(of.key)
  const conflict = keep ? ` ON CONFLICT (${columns.join(', ')}, seq) DO UPDATE SET created_at = excluded.created_at` : ''
  const text = `INSERT INTO ${of.table} (${columns.join(', ')}, seq, created_at, content) VALUES (${columns.map(() => '?').join(', ')}, ?, ?, ?)${conflict}`
  let seq = 0
  for await (const part of inTurns(parts)) {
    await sql.run(text, [...Object.values(of.key), seq++, now, part])
  }
}

/** The highest part number stored, or -1 when there are none. */
async function lastPart(sql: Sql, of: PartsOf): Promise<number> {
  const row = await sql.get<{ last: number | string | null }>(`SELECT MAX(seq) AS last FROM ${of.table} WHERE ${whereOf(of)}`, Object.values(of.key))
  return row?.last == null ? -1 : Number(row.last)
}

/**
 * The stored parts in order, a statement per part with a turn between; null for a part missing between the first
 * and the last (a removal cut short, or one behind the store's back): the caller decides what that means.
 */
export async function* readByteParts(sql: Sql, of: PartsOf): AsyncGenerator<Buffer | null> {
  const last = await lastPart(sql, of)
  for await (const seq of inTurns(upTo(last + 1))) {
    const part = await sql.get<{ content: Buffer }>(`SELECT content FROM ${of.table} WHERE ${whereOf(of)} AND seq = ?`, [...Object.values(of.key), seq])
    yield part ? part.content : null
  }
}

/**
 * Removes the parts, a part per statement with a turn between. Part 0 goes first: a removal cut short leaves nothing
 * that reads as whole, and the orphan sweeps take the rest.
 */
export async function deleteByteParts(sql: Sql, of: PartsOf): Promise<void> {
  const last = await lastPart(sql, of)
  for await (const seq of inTurns(upTo(last + 1))) {
    await sql.run(`DELETE FROM ${of.table} WHERE ${whereOf(of)} AND seq = ?`, [...Object.values(of.key), seq])
  }
}
