// Platform state read from storage and live components: health, inventory, database statistics, command-center panels.
import { z } from 'zod'
import type { Clock } from '../clock.js'
import { introspect } from '../store/introspect.js'
import type { RouteEntry } from '../plugins/route-table.js'
import type { Mill } from '../mill/pool.js'
import type { Admission } from '../plugins/admission.js'
import type { Store } from '../store/index.js'
import { STRATEGIES, STRATEGY_NAMES } from '../engines/trading/index.js'
import { datasetView } from './datasets.js'
import { iso } from './present.js'
import type { RunRow, TradingRepository } from './repository.js'
import type { RpcProber } from './rpc-prober.js'
import { PLATFORM_VERSION } from './schemas.js'
import { verifyAll } from './verify.js'
import { MAX_CONFIG_BARS, MAX_CONFIGS, MAX_V10_PAIRS, SIMULATE_MAX_BAR_STEPS } from './research/limits.js'

export interface SystemDeps {
  store: Store
  repo: TradingRepository
  mill: Mill
  admission: Admission
  clock: Clock
  prober: RpcProber
  startedAt: number
  /** A verification younger than this is answered again instead of re-reading the whole database (VERIFY_CACHE_MS). */
  verifyCacheMs: number
}

type Status = 'ok' | 'degraded' | 'down'

export const MODE_REASON =
  'paper trading only: orders are filled against stored bars with modelled slippage and commission; no broker is connected and nothing is ever sent to a market'

export function createSystem(deps: SystemDeps) {
  const { store, repo, mill, admission, clock, prober, startedAt, verifyCacheMs } = deps
  // /system/verify is public and reads every page of the database on the event loop (0.2–2.4 s): one run per
  // VERIFY_CACHE_MS at most, whoever asks and however often.
  let lastVerify: { at: number; answer: ReturnType<typeof verifyAll> } | null = null
  function verify() {
    const now = clock.now()
    if (lastVerify && now - lastVerify.at < verifyCacheMs && now >= lastVerify.at) return { ...lastVerify.answer, cached: true }
    lastVerify = { at: now, answer: verifyAll(store, repo, now) }
    return { ...lastVerify.answer, cached: false }
  }
  const uptimeS = () => Math.max(0, Math.round((clock.now() - startedAt) / 100) / 10)

  function databaseCheck() {
    const started = performance.now()
    try {
      store.ping()
      return { ok: true, detail: 'SELECT 1 answered', latency_ms: elapsed(started) }
    } catch (err) {
      return { ok: false, detail: `SELECT 1 failed: ${(err as Error).message}`, latency_ms: elapsed(started) }
    }
  }

  function v11Health() {
    const database = databaseCheck()
    const components: Array<{ name: string; status: Status; detail: string; [k: string]: unknown }> = []
    components.push({ name: 'database', status: database.ok ? 'ok' : 'down', detail: database.detail, latency_ms: database.latency_ms })
    if (database.ok) {
      const pending = store.pending()
      components.push({
        name: 'migrations', status: pending.length ? 'degraded' : 'ok',
        detail: pending.length ? `${pending.length} pending: ${pending.join(', ')}` : `${store.applied().length} applied, none pending`,
      })
      const datasets = repo.datasetCount()
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

  return {
    uptimeS,
    startedAt,
    /** `SELECT 1` with its latency: every health mapping (root, v10, v11) starts from it. */
    databaseCheck,

    v11Health,

    verify,

    /** `routes`: the platform's rows of the host's route table. */
    inventory(routes: ReadonlyArray<Pick<RouteEntry, 'method' | 'url' | 'summary' | 'deprecated'>>) {
      const counts = repo.tableCounts()
      return {
        version: PLATFORM_VERSION,
        mode: 'paper' as const,
        datasets: repo.datasets().map(datasetView),
        strategies: STRATEGY_NAMES.map((name) => {
          const spec = STRATEGIES[name]
          return {
            name,
            describe: spec.describe,
            params: z.toJSONSchema(spec.params, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
            defaults: spec.defaults,
            grid: spec.grid,
          }
        }),
        routes: routes.map(({ method, url, summary, deprecated }) => ({ method, url, summary, deprecated })),
        counts: {
          datasets: counts.datasets,
          bars: counts.bars,
          runs: repo.runCounts(),
          signals: counts.signals,
          cycles: counts.cycles,
          orders: counts.orders,
          fills: counts.fills,
          positions: counts.positions,
          accounts: counts.accounts,
        },
        limits: {
          max_configs: MAX_CONFIGS,
          max_config_bars: MAX_CONFIG_BARS,
          max_v10_pairs: MAX_V10_PAIRS,
          simulate_max_bar_steps: SIMULATE_MAX_BAR_STEPS,
        },
      }
    },

    dbStats() {
      const db = introspect(store.db)
      const pageSize = Number(db.pragma('page_size'))
      const pageCount = Number(db.pragma('page_count'))
      const sizes = store.fileSizes()
      return {
        sqlite_version: db.sqliteVersion(),
        journal_mode: String(db.pragma('journal_mode')),
        in_memory: store.path === ':memory:',
        page_size: pageSize,
        page_count: pageCount,
        freelist_count: Number(db.pragma('freelist_count')),
        database_bytes: pageSize * pageCount,
        file_bytes: sizes.file,
        wal_bytes: sizes.wal,
        tables: db.tables(),
        migrations: store.applied().map((m) => ({ name: m.name, applied_at: m.applied_at })),
      }
    },

    panels() {
      const datasets = repo.datasets()
      const byId = new Map(datasets.map((d) => [d.id, d]))
      const account = repo.account('paper') ?? repo.accounts()[0] ?? null
      let positionsPanel: {
        account: Record<string, unknown> | null
        positions: Array<Record<string, unknown>>
      } = { account: null, positions: [] }
      if (account) {
        let marketValue = 0
        let realized = 0
        let unrealized = 0
        const positions = repo.positions(account.id).map((p) => {
          const last = repo.lastBar(p.dataset_id)
          const value = last ? p.quantity * last.close : null
          const upnl = last ? p.quantity * (last.close - p.avg_price) : null
          marketValue += value ?? 0
          realized += p.realized_pnl
          unrealized += upnl ?? 0
          return {
            dataset_id: p.dataset_id, symbol: p.symbol, quantity: p.quantity, avg_price: p.avg_price,
            last_price: last?.close ?? null, last_bar_ts: last ? iso(last.ts) : null, market_value: value,
            unrealized_pnl: upnl, realized_pnl: p.realized_pnl, updated_at: p.updated_at,
          }
        })
        const equity = account.cash + marketValue
        positionsPanel = {
          account: {
            id: account.id, currency: account.currency, initial_cash: account.initial_cash, cash: account.cash,
            market_value: marketValue, equity, realized_pnl: realized, unrealized_pnl: unrealized,
            total_pnl: equity - account.initial_cash, total_return_pct: (equity / account.initial_cash - 1) * 100,
          },
          positions,
        }
      }
      const signals = repo.recentSignals(10).map((s) => ({
        id: s.id, dataset_id: s.dataset_id, symbol: s.symbol, timeframe: s.timeframe, strategy: s.strategy,
        params: JSON.parse(s.params) as Record<string, unknown>, signal: s.signal, bar_ts: iso(s.bar_ts),
        origin: s.origin, run_id: s.run_id, created_at: s.created_at,
      }))
      const runs = repo.recentRuns(10).map((r) => ({
        id: r.id, kind: r.kind, dataset_id: r.dataset_id, symbol: byId.get(r.dataset_id)?.symbol ?? null,
        strategy: r.strategy, params: JSON.parse(r.params) as Record<string, unknown>,
        headline: headlineOf(r.kind, JSON.parse(r.stats) as Record<string, unknown>),
        inputs_digest: r.inputs_digest, elapsed_ms: r.elapsed_ms, created_at: r.created_at,
      }))
      const latest = repo.latestBacktest()
      return {
        generated_at: iso(clock.now()),
        mode: { mode: 'paper' as const, live_trading: false as const },
        panels: {
          positions: positionsPanel,
          signals,
          runs,
          datasets: datasets.map((d) => ({
            id: d.id, symbol: d.symbol, timeframe: d.timeframe, source: d.source, rows: d.rows,
            first_ts: d.first_ts === null ? null : iso(d.first_ts), last_ts: d.last_ts === null ? null : iso(d.last_ts),
          })),
          health: v11Health(),
          rpc: prober.snapshot(),
          equity: latest ? equityOf(latest, byId.get(latest.dataset_id)?.symbol ?? null) : null,
        },
      }
    },
  }
}

export function headlineOf(kind: string, stats: Record<string, unknown>): Record<string, number | null> {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
  if (kind === 'backtest') {
    return { return_pct: num(stats.return_pct), sharpe_ratio: num(stats.sharpe_ratio), max_drawdown_pct: num(stats.max_drawdown_pct), trades: num(stats.trades) }
  }
  if (kind === 'simulate') {
    return { return_p50_pct: num(stats.return_p50_pct), probability_of_loss: num(stats.probability_of_loss), var95_pct: num(stats.var95_pct) }
  }
  const best = (stats.best ?? null) as { oos_sharpe?: unknown; oos_return_pct?: unknown } | null
  const dsr = (stats.deflated_sharpe ?? null) as { dsr?: unknown } | null
  return {
    oos_sharpe: num(best?.oos_sharpe), oos_return_pct: num(best?.oos_return_pct),
    configs_tried: num(stats.configs_tried ?? stats.tried), deflated_sharpe: num(dsr?.dsr),
  }
}

function equityOf(run: RunRow, symbol: string | null) {
  const stats = JSON.parse(run.stats) as { return_pct?: unknown }
  return {
    run_id: run.id,
    dataset_id: run.dataset_id,
    symbol,
    strategy: run.strategy,
    return_pct: typeof stats.return_pct === 'number' ? stats.return_pct : null,
    points: JSON.parse(run.equity!) as Array<[number, number]>,
  }
}

const elapsed = (started: number): number => Math.round((performance.now() - started) * 1000) / 1000
