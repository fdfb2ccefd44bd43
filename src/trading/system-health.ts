// The platform's v11 health: one component per part (database, migrations, datasets, mill, admission, rpc, execution).
import type { Clock } from '../sched/clock.js'
import type { Mill } from '../mill/pool.js'
import type { Admission } from '../plugins/admission.js'
import type { Store } from '../store/index.js'
import { storeStatus } from '../store/status.js'
import { iso } from './present.js'
import type { TradingRepository } from './repository.js'
import type { RpcProber } from './rpc-prober.js'
import { PLATFORM_VERSION } from './schemas.js'

type Status = 'ok' | 'degraded' | 'down'

export const MODE_REASON =
  'paper trading only: orders are filled against stored bars with modelled slippage and commission; no broker is connected and nothing is ever sent to a market'

export interface HealthDeps {
  store: Store
  repo: TradingRepository
  mill: Mill
  admission: Admission
  clock: Clock
  prober: RpcProber
}

/** `SELECT 1` with its latency, and the store it went to (backend, version, pool): every health mapping (root, v10, v11) starts from it. */
export async function databaseCheck(store: Store) {
  const started = performance.now()
  const status = await storeStatus(store)
  const latency_ms = status.latency_ms ?? elapsed(started)
  const room = status.storage.state === 'ok' ? '' : `; storage ${status.storage.state}: ${status.storage.reason}`
  return { ok: status.ok, full: status.storage.state === 'full', detail: (status.ok ? 'SELECT 1 answered' : `SELECT 1 failed: ${status.error}`) + room, latency_ms, store: status }
}

export async function v11HealthOf({ store, repo, mill, admission, clock, prober }: HealthDeps, uptimeS: () => number) {
  const database = await databaseCheck(store)
  const components: Array<{ name: string; status: Status; detail: string; [k: string]: unknown }> = []
  const { backend, version, pool } = database.store
  components.push({ name: 'database', status: !database.ok ? 'down' : database.full ? 'degraded' : 'ok', detail: database.detail, latency_ms: database.latency_ms, backend, version, pool })
  if (database.ok) {
    const pending = await store.pending()
    components.push({
      name: 'migrations', status: pending.length ? 'degraded' : 'ok',
      detail: pending.length ? `${pending.length} pending: ${pending.join(', ')}` : `${(await store.applied()).length} applied, none pending`,
    })
    const datasets = await repo.datasetCount()
    components.push({
      name: 'datasets', status: datasets > 0 ? 'ok' : 'degraded', count: datasets,
      detail: datasets > 0 ? `${datasets} datasets stored` : 'no dataset: import one (POST /api/v11/datasets) to trade',
    })
  }
  const millStats = mill.stats()
  components.push({
    name: 'mill', status: mill.isSaturated() ? 'degraded' : 'ok',
    detail: `${millStats.threads} threads, ${millStats.running} running, ${millStats.queue_size} queued (max ${millStats.max_queue})`,
    threads: millStats.threads, running: millStats.running, queue_size: millStats.queue_size, timeouts: millStats.timeouts,
  })
  const occupancy = admission.state()
  components.push({
    name: 'admission', status: occupancy === 'live-bound' ? 'ok' : 'degraded', occupancy,
    detail: occupancy === 'live-bound' ? 'heavy work admitted' : (admission.reason() ?? occupancy),
  })
  const rpc = prober.snapshot()
  const healthy = rpc.endpoints.filter((e) => e.healthy).length
  components.push({
    name: 'rpc', status: !rpc.configured || healthy > 0 ? 'ok' : 'degraded', configured: rpc.configured, healthy, endpoints: rpc.endpoints.length,
    detail: rpc.configured ? `${healthy} of ${rpc.endpoints.length} endpoints healthy` : 'no RPC_ENDPOINTS configured',
  })
  components.push({ name: 'execution', status: 'ok', detail: MODE_REASON })
  const status: Status = components.some((c) => c.status === 'down') ? 'down'
    : components.some((c) => c.status === 'degraded') ? 'degraded' : 'ok'
  return { status, version: PLATFORM_VERSION, uptime_s: uptimeS(), checked_at: iso(clock.now()), components }
}

const elapsed = (started: number): number => Math.round((performance.now() - started) * 1000) / 1000
