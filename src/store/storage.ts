// Whether the store has room to write, as health reports it: the free space of the SQLite file's filesystem (measured
// with statfs) and the last write the store refused for want of space (on either backend: PostgreSQL's server disk is
// seen only through its refusals). A full store turns health to `fail` with the reason; a nearly full one to `warn`.
import { statfsSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { storeFaultOf } from './faults.js'

/** A refused write counts as "full now" for this long after it (a freed disk is seen at the next write or statfs). */
export const FULL_REMEMBERED_MS = 60_000
/** Free space under this (or under 1% of the filesystem) is full; under 64 MiB (or 5%), low. */
const FULL_BELOW_BYTES = 1024 * 1024
const LOW_BELOW_BYTES = 64 * 1024 * 1024

export const storageStateSchema = z.object({
  state: z.enum(['ok', 'low', 'full']).describe('full: a write was refused for want of space in the last minute, or almost no space is left'),
  free_bytes: z.number().nullable().describe("free space of the SQLite file's filesystem; null for PostgreSQL and :memory:"),
  total_bytes: z.number().nullable(),
  reason: z.string().nullable(),
})
export type StorageState = z.infer<typeof storageStateSchema>

export interface StorageWatch {
  /** Told of every error a statement or checkpoint met; remembers the ones that mean "no space left". */
  note(err: unknown): void
  state(): StorageState
  /**
   * Throws a disk-full store fault (SQLITE_FULL) when the filesystem is already below the full floor, so that a write is
   * refused before it starts rather than by whichever page first fails to land (SQLite reuses its WAL's old frames, so
   * some writes on a full disk would pass and others not, by the checkpoint's timing). The store notes the error.
   */
  refuseWriteWhenFull(): void
}

export function createStorageWatch(file: string | null): StorageWatch {
  let lastFull: { at: number; message: string } | null = null
  const folder = file === null || file === ':memory:' ? null : dirname(file)
  return {
    note(err) {
      if (storeFaultOf(err) === 'full') lastFull = { at: Date.now(), message: (err as Error).message ?? String(err) }
    },
    state() {
      const space = folder === null ? null : spaceOf(folder)
      const free = space?.free ?? null
      const total = space?.total ?? null
      const age = lastFull === null ? Infinity : Date.now() - lastFull.at
      if (age < FULL_REMEMBERED_MS) {
        return { state: 'full', free_bytes: free, total_bytes: total, reason: `a write was refused ${Math.round(age / 1000)} s ago: ${lastFull!.message}` }
      }
      if (space !== null && belowFullFloor(space)) {
        return { state: 'full', free_bytes: free, total_bytes: total, reason: `${free} bytes free of ${total}` }
      }
      if (free !== null && total !== null && free < Math.min(LOW_BELOW_BYTES, total / 20)) {
        return { state: 'low', free_bytes: free, total_bytes: total, reason: `${free} bytes free of ${total}` }
      }
      return { state: 'ok', free_bytes: free, total_bytes: total, reason: null }
    },
    refuseWriteWhenFull() {
      const full = folder === null ? null : spaceOf(folder)
      if (full === null || !belowFullFloor(full)) return
      throw Object.assign(new Error(`database or disk is full: ${full.free} bytes free of ${full.total} on the data folder's filesystem, refused before writing`), { code: 'SQLITE_FULL' })
    },
  }
}

const belowFullFloor = (space: { free: number; total: number }): boolean => space.free < Math.min(FULL_BELOW_BYTES, space.total / 100)

function spaceOf(folder: string): { free: number; total: number } | null {
  try {
    const stats = statfsSync(folder)
    return { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize }
  } catch {
    return null
  }
}
