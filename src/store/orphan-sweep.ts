// Parts written before the row that owns them (a job's input and answer, a pin's bytes) outlive a crash between the two:
// a sweep walks the part keys a bounded page at a time, from the start again after the last, and names the owners of
// parts that have no live row and are older than ORPHAN_AFTER_MS, so no call's cost grows with the table.
import { keysetPages } from './keyset.js'
import type { Sql } from './sql.js'

/** Parts older than this without a live row are a crash's leftovers (a row still on its way is written well before). */
export const ORPHAN_AFTER_MS = 60 * 60_000

/** Part keys looked at per sweep: a bounded read each call, the whole table in turn over many calls. */
export const SWEEP_PARTS = 256

/** A row of the sweep's SELECT: the part's key columns, its owner, when it was written, and its live row if any. */
export interface PartRow {
  created_at: number | string
  /** Not null when the owner's row is there (and live). */
  live: string | null
}

export interface OrphanSweepSpec<Row extends PartRow> {
  /** `SELECT <key columns>, created_at, <row column> AS live FROM <parts> LEFT JOIN <rows> ON …`. */
  select: string
  /** The parts' primary key, qualified as in `select`. */
  key: readonly string[]
  keyOf(row: Row): Array<string | number>
  ownerOf(row: Row): string
}

/** A sweep: each call looks at the next SWEEP_PARTS part keys and answers the owners of the orphans among them. */
export function orphanSweep<Row extends PartRow>(sql: Sql, spec: OrphanSweepSpec<Row>): (now: number) => Promise<string[]> {
  const page = keysetPages<Row>(sql, { select: spec.select, key: spec.key, order: 'asc' })
  let after: Array<string | number> | null = null
  return async (now) => {
    const rows = await page({}, after, SWEEP_PARTS)
    const seen = rows.slice(0, SWEEP_PARTS)
    const last = seen[seen.length - 1]
    after = rows.length > SWEEP_PARTS && last ? spec.keyOf(last) : null
    const orphans = seen.filter((row) => row.live === null && Number(row.created_at) <= now - ORPHAN_AFTER_MS)
    return [...new Set(orphans.map(spec.ownerOf))]
  }
}
