// A job's input or answer as rows of job_parts (migration 0007): one short statement per part with a loop turn
// between, so a 14 MB text never holds the event loop for one long INSERT, UPDATE or SELECT.
import type { Sql } from '../store/sql.js'
import { nextTurn } from '../store/turns.js'

export type PartKind = 'input' | 'result'

/** Parts older than this without a live job row are a crash's leftovers (written, then no row). */
export const ORPHAN_AFTER_MS = 60 * 60_000

/** Writes a text's parts in order, a turn between statements (one part: one INSERT, no turn). */
export async function writeParts(sql: Sql, jobId: string, kind: PartKind, parts: readonly string[], now: number): Promise<void> {
  for (let seq = 0; seq < parts.length; seq++) {
    if (seq > 0) await nextTurn()
    await sql.run('INSERT INTO job_parts (job_id, kind, seq, created_at, text) VALUES (?, ?, ?, ?, ?)', [jobId, kind, seq, now, parts[seq]])
  }
}

/** The stored text parsed, or null when it has no parts; a statement per part with a turn between. */
export async function readParts(sql: Sql, jobId: string, kind: PartKind): Promise<unknown> {
  const first = await sql.get<{ text: string; last: number | string }>(
    `SELECT text, (SELECT MAX(seq) FROM job_parts WHERE job_id = @id AND kind = @kind) AS last
     FROM job_parts WHERE job_id = @id AND kind = @kind AND seq = 0`,
    { id: jobId, kind },
  )
  if (!first) return null
  const texts = [first.text]
  for (let seq = 1; seq <= Number(first.last); seq++) {
    await nextTurn()
    const row = await sql.get<{ text: string }>('SELECT text FROM job_parts WHERE job_id = ? AND kind = ? AND seq = ?', [jobId, kind, seq])
    if (!row) throw new Error(`job ${jobId}: ${kind} part ${seq} is missing`)
    texts.push(row.text)
  }
  return JSON.parse(texts.length === 1 ? texts[0]! : texts.join(''))
}

/**
 * Removes a job's parts (of one kind, or all), a part per statement with a turn between. Part 0 goes first: a removal
 * cut short leaves no text that reads as whole, and the purge's orphan sweep takes the rest.
 */
export async function deleteParts(sql: Sql, jobId: string, kind?: PartKind): Promise<void> {
  const kinds = kind ? [kind] : (['input', 'result'] as const)
  for (const k of kinds) {
    const row = await sql.get<{ last: number | string | null }>('SELECT MAX(seq) AS last FROM job_parts WHERE job_id = ? AND kind = ?', [jobId, k])
    if (row?.last == null) continue
    for (let seq = 0; seq <= Number(row.last); seq++) {
      if (seq > 0) await nextTurn()
      await sql.run('DELETE FROM job_parts WHERE job_id = ? AND kind = ? AND seq = ?', [jobId, k, seq])
    }
  }
}

/**
 * Jobs with parts created in (after, until] and no live row (purged, deleted, or never written: a crash between
 * parts and row). The window keeps each look to the parts that came of age since the last one.
 */
export async function orphanedPartJobs(sql: Sql, after: number, until: number): Promise<string[]> {
  const rows = await sql.all<{ job_id: string }>(
    `SELECT DISTINCT job_id FROM job_parts p WHERE created_at > ? AND created_at <= ?
     AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = p.job_id AND j.purged_at IS NULL)`,
    [Number.isFinite(after) ? after : Number.MIN_SAFE_INTEGER, until],
  )
  return rows.map((row) => row.job_id)
}
