// Platform state read from storage and live components: health, inventory, database statistics, command-center panels
// (each in its own module: system-health.ts, system-inventory.ts, system-panels.ts).
import { databaseCheck, v11HealthOf, type HealthDeps } from './system-health.js'
import { inventoryOf } from './system-inventory.js'
import { databaseStats } from '../store/stats.js'
import { panelsOf } from './system-panels.js'
import { verifyAll } from './verify.js'

export { MODE_REASON } from './system-health.js'
export { headlineOf } from './system-panels.js'

export interface SystemDeps extends HealthDeps {
  startedAt: number
  /** A verification younger than this is answered again instead of re-reading the whole database (VERIFY_CACHE_MS). */
  verifyCacheMs: number
}

export function createSystem(deps: SystemDeps) {
  const { store, repo, mill, admission, clock, prober, startedAt, verifyCacheMs } = deps
  // /system/verify is public and reads every page of the database (0.2–2.4 s): one run per VERIFY_CACHE_MS at most,
  // whoever asks and however often (a request during a run waits for that run).
  let lastVerify: { at: number; answer: ReturnType<typeof verifyAll> } | null = null
  async function verify() {
    const now = clock.now()
    if (lastVerify && now - lastVerify.at < verifyCacheMs && now >= lastVerify.at) return { ...(await lastVerify.answer), cached: true }
    const run = { at: now, answer: verifyAll(store.sql, repo, now, store.checkPragma) }
    lastVerify = run
    try {
      return { ...(await run.answer), cached: false }
    } catch (err) {
      if (lastVerify === run) lastVerify = null
      throw err
    }
  }
  const uptimeS = () => Math.max(0, Math.round((clock.now() - startedAt) / 100) / 10)

  const health = { store, repo, mill, admission, clock, prober }
  const v11Health = () => v11HealthOf(health, uptimeS)

  return {
    uptimeS,
    startedAt,
    /** `SELECT 1` with its latency: every health mapping (root, v10, v11) starts from it. */
    databaseCheck: () => databaseCheck(store),

    v11Health,

    verify,

    /** `routes`: the platform's rows of the host's route table. */
    inventory: (routes: Parameters<typeof inventoryOf>[1]) => inventoryOf(repo, routes),

    dbStats: () => databaseStats(store),

    /** The command center's panels; its runs and equity card show `runsOf`'s runs (every run when null). */
    panels: (runsOf: string | null) => panelsOf(repo, clock, prober, v11Health, runsOf),
  }
}
