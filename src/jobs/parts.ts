// A job's input or answer as rows of job_parts (migration 0007): one short statement per part with a loop turn
// between, so a 14 MB text never holds the event loop for one long INSERT, UPDATE or SELECT.
import { orphanSweep } from '../store/orphan-sweep.js'
import type { Sql } from '../store/sql.js'
import { nextTurn } from '../store/turns.js'
import { JsonBytes } from '../json/bytes.js'

export type PartKind = 'input' | 'result'

export { ORPHAN_AFTER_MS } from '../store/orphan-sweep.js'

/** Writes a text's parts in order as they come (jsonParts, or parts in hand), a turn between statements (one part: one INSERT, no turn). */
export async function writeParts(sql: Sql, jobId: string, kind: PartKind, parts: Iterable<string> | AsyncIterable<string>, now: number): Promise<void> {
  let seq = 0
  for await (const part of parts) {
    if (seq > 0) await nextTurn()
    await sql.run('INSERT INTO job_parts (job_id, kind, seq, created_at, text) VALUES (?, ?, ?, ?, ?)', [jobId, kind, seq++, now, part])
  }
}

/** The stored text parsed, or null when it has no parts (an input, which a run needs as data). */
export async function readParts(sql: Sql, jobId: string, kind: PartKind): Promise<unknown> {
  const texts: string[] = []
  for await (const text of storedParts(sql, jobId, kind)) texts.push(text)
  return texts.length === 0 ? null : JSON.parse(texts.length === 1 ? texts[0]! : texts.join(''))
}

/** The stored answer as the bytes a reply sends (a part encoded per statement read), or null when it has no parts. */
export async function readBytes(sql: Sql, jobId: string, kind: PartKind): Promise<JsonBytes | null> {
  const chunks: Buffer[] = []
  for await (const text of storedParts(sql, jobId, kind)) chunks.push(Buffer.from(text))
  return chunks.length === 0 ? null : new JsonBytes(chunks)
}

/** A job's stored parts in order, a statement per part with a turn between. */
async function* storedParts(sql: Sql, jobId: string, kind: PartKind): AsyncGenerator<string> {
  const first = await sql.get<{ text: string; last: number | string }>(
    `SELECT text, (SELECT MAX(seq) FROM job_parts WHERE job_id = @id AND kind = @kind) AS last
     FROM job_parts WHERE job_id = @id AND kind = @kind AND seq = 0`,
    { id: jobId, kind },
  )
  if (!first) return
  yield first.text
  for (let seq = 1; seq <= Number(first.last); seq++) {
    await nextTurn()
    const row = await sql.get<{ text: string }>('SELECT text FROM job_parts WHERE job_id = ? AND kind = ? AND seq = ?', [jobId, kind, seq])
    if (!row) throw new Error(`job ${jobId}: ${kind} part ${seq} is missing`)
    yield row.text
  }
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
