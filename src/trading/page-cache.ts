// The command center page rendered once per data version and second (issue #13): reading the panels (~0.6 ms of
// synchronous SQLite) and rendering them (~0.4 ms: the runs table's figures, the equity chart's points) per request made
// a burst of 30 GETs hold the loop 30-40 ms. A burst now shares one render; the version key shows every write at once.
import type { Clock } from '../sched/clock.js'
import type { Store } from '../store/index.js'

/**
 * How long one render answers while the data version is unchanged: the live parts (health, uptime, RPC latencies) are
 * as of the page's "generated" time, which it shows; a write to the database shows on the next request whatever this is.
 */
export const PAGE_CACHE_MS = 1000

/**
 * A key that changes with every write the page could show. SQLite: `total_changes()` counts the rows this process's
 * connection inserted, updated or deleted (every repository writes through it), `PRAGMA data_version` changes when
 * another connection (another process on the file) commits; both are read without touching a table. PostgreSQL has no
 * such cheap counter for other instances' writes: null, and the page is rendered per request there.
 */
export async function dataVersionOf(store: Pick<Store, 'backend' | 'sql'>): Promise<string | null> {
  if (store.backend !== 'sqlite') return null
  const row = await store.sql.get<{ changes: number; version: number }>(
    'SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS version')
  return row ? `${row.changes}:${row.version}` : null
}

/** Viewers whose page is kept at once (the runs it shows are the viewer's own): past it the oldest render goes. */
export const PAGE_CACHE_VIEWERS = 64

export interface PageCacheDeps<V> {
  clock: Clock
  version: () => Promise<string | null>
  render: (viewer: V) => Promise<string>
}

/**
 * The page as `viewer` sees it (its own runs: a key naming it, or null for one that sees every run); requests of one
 * viewer while a render of the same version runs wait for that render.
 */
export function createPageCache<V extends string | null>({ clock, version, render }: PageCacheDeps<V>): (viewer: V) => Promise<string> {
  const last = new Map<V, { key: string; at: number; page: Promise<string> }>()
  return async (viewer) => {
    // Read before rendering: a write during the render bumps the version, so the next request renders again.
    const key = await version()
    const now = clock.now()
    if (key === null) return render(viewer)
    const kept = last.get(viewer)
    if (kept && kept.key === key && now >= kept.at && now - kept.at < PAGE_CACHE_MS) return kept.page
    const entry = { key, at: now, page: render(viewer) }
    last.delete(viewer)
    last.set(viewer, entry)
    if (last.size > PAGE_CACHE_VIEWERS) last.delete(last.keys().next().value!)
    try {
      return await entry.page
    } catch (err) {
      if (last.get(viewer) === entry) last.delete(viewer) // a failed render is not kept: the next request tries again
      throw err
    }
  }
}
