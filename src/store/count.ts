// Exact row counts that do not hold the event loop for a whole table. On SQLite count(*) runs on the one connection,
// synchronously: 20–26 ms for 3M bars, growing with every import, on every inventory or db/stats read. So a SQLite
// table is counted a slice of its key order at a time (COUNT_STEP rows, a few ms), with a loop turn between slices.
// PostgreSQL counts on its own server, off the loop: one count(*).
import type { Sql } from './sql.js'
import { inTurns } from '../sched/turns.js'
import { coalesce } from '../sched/coalesce.js'

/** Rows per slice of a SQLite count: about 2 ms of the loop each on this machine. */
export const COUNT_STEP = 65_536

/** Names come from the catalogue or the code itself; quoting keeps any name a single identifier. */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * The table's rows. On SQLite, slices in key order (rowid, or a WITHOUT ROWID table's primary key as a row value);
 * a table written to between slices is counted as each slice found it, like any count taken while writes go on.
 */
export function countRows(sql: Sql, table: string): Promise<number> {
  let counters = shared.get(sql)
  if (!counters) shared.set(sql, (counters = new Map()))
  let count = counters.get(table)
  if (!count) counters.set(table, (count = coalesce(() => countNow(sql, table))))
  return count()
}

// Concurrent counts of one table share the one in flight: a sliced count costs more CPU in all than one count(*)
// (3M bars: 145–210 ms in 45 slices of at most 4–15 ms, against one 20–26 ms stretch), so callers looping on an
// inventory must not each start their own.
const shared = new WeakMap<Sql, Map<string, () => Promise<number>>>()

async function countNow(sql: Sql, table: string): Promise<number> {
  const name = quoted(table)
  if (sql.dialect !== 'sqlite') return Number((await sql.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${name}`))!.n)
  const key = await orderKey(sql, table)
  const columns = key.map(quoted).join(', ')
  const after = (edge: unknown[] | null) => (edge ? `WHERE (${columns}) > (${key.map(() => '?').join(', ')})` : '')
  // Each slice's rows: COUNT_STEP, found by walking the key's index from the previous edge to the slice's last row,
  // or for the last slice those left.
  async function* slices(): AsyncGenerator<number> {
    let edge: unknown[] | null = null
    for (;;) {
      const [next] = await sql.values(
        `SELECT ${columns} FROM ${name} ${after(edge)} ORDER BY ${columns} LIMIT 1 OFFSET ${COUNT_STEP - 1}`, edge ?? [])
      if (!next) {
        yield Number((await sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${name} ${after(edge)}`, edge ?? []))!.n)
        return
      }
      yield COUNT_STEP
      edge = next
    }
  }
  let counted = 0
  for await (const rows of inTurns(slices())) counted += rows
  return counted
}

/** rowid, or for a WITHOUT ROWID table its primary key's columns in key order. */
async function orderKey(sql: Sql, table: string): Promise<string[]> {
  const info = await sql.all<{ name: string; pk: number }>(`SELECT name, pk FROM pragma_table_info(?)`, [table])
  const withoutRowid = await sql.get<{ wr: number }>(`SELECT wr FROM pragma_table_list(?)`, [table])
  if (!withoutRowid?.wr) return ['rowid']
  return info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name)
}
