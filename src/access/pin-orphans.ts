// Pin parts whose row never came (the process died between writing a pin's parts and its row) are removed once an
// hour old, found by the store's bounded orphan sweep (store/orphan-sweep.ts) and deleted a part a statement.
import { ORPHAN_AFTER_MS, orphanSweep } from '../store/orphan-sweep.js'
import type { Sql } from '../store/sql.js'
import { inTurns, upTo } from '../sched/turns.js'

interface PinPartRow {
  digest: string
  seq: number | string
  created_at: number | string
  live: string | null
}

/**
 * A sweep of pin_parts: each call looks at the next SWEEP_PARTS part keys and removes the parts of pins without a row
 * among them; answers how many parts went. A part is only deleted while it still has no row and is still old: a put of
 * the same content meanwhile writes it again at its own time (pin-parts.ts), and keeps it.
 */
export function createPinOrphanSweep(sql: Sql): (now: number) => Promise<number> {
  const orphansAmong = orphanSweep<PinPartRow>(sql, {
    select: 'SELECT p.digest, p.seq, p.created_at, r.digest AS live FROM pin_parts p LEFT JOIN pins r ON r.digest = p.digest',
    key: ['p.digest', 'p.seq'],
    keyOf: (row) => [row.digest, Number(row.seq)],
    ownerOf: (row) => row.digest,
  })
  return async (now) => {
    let removed = 0
    for (const digest of await orphansAmong(now)) {
      const row = await sql.get<{ last: number | string | null }>('SELECT MAX(seq) AS last FROM pin_parts WHERE digest = ?', [digest])
      for await (const seq of inTurns(upTo(row?.last == null ? 0 : Number(row.last) + 1))) {
        const { changes } = await sql.run(
          `DELETE FROM pin_parts WHERE digest = @digest AND seq = @seq AND created_at <= @before
           AND NOT EXISTS (SELECT 1 FROM pins WHERE digest = @digest)`,
          { digest, seq, before: now - ORPHAN_AFTER_MS },
        )
        removed += changes
      }
    }
    return removed
  }
}
