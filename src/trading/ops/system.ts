// The platform's own state: health (root, v11, v10), inventory, mode, verification, database statistics, the command
// center (page and panels) and the upstream RPC probes.
import { z } from 'zod'
import { PlatformProblem } from '../../http/problem.js'
import { scaleOutReport } from '../../plugins/scale-out.js'
import { Answer, defineTradingOperation } from '../operation.js'
import { iso } from '../present.js'
import { MODE_REASON } from '../system.js'
import {
  dbStatsAnswer, modeAnswer, PLATFORM_VERSION, rootHealthAnswer, v10HealthAnswer, v11HealthAnswer, verifyAnswer,
} from '../schemas.js'
import { TAGS } from '../context.js'
import { listedRunOwner } from '../run-access.js'
import { V10_SUCCESSORS, V10_VERSION } from '../v10.js'

const anyObject = z.record(z.string(), z.unknown())

export const systemOperations = [
  defineTradingOperation({
    name: 'trading.health',
    method: 'GET',
    group: 'root',
    path: '/health',
    tag: TAGS.v11,
    summary: 'Platform health: version 11.0.0, database check, uptime (503 when the database fails); the store (SQLite or PostgreSQL: version, latency, pool use); the queue backend, the rate limit\'s store and the shared Redis (degraded while it cannot answer)',
    output: rootHealthAnswer,
    responses: { 503: rootHealthAnswer },
    async handler(_input, { system, host }) {
      const database = await system.databaseCheck()
      const scaleOut = await scaleOutReport(host)
      const health: z.infer<typeof rootHealthAnswer> = {
        // A full store still answers reads: degraded (writes are refused with occupied until space is freed).
        status: !database.ok ? 'down' : database.full || (scaleOut.redis && !scaleOut.redis.reachable) ? 'degraded' : 'ok',
        version: PLATFORM_VERSION,
        mode: 'paper',
        uptime_s: system.uptimeS(),
        started_at: iso(system.startedAt),
        checks: { database: { ok: database.ok, detail: database.detail, latency_ms: database.latency_ms } },
        scale_out: scaleOut,
        store: database.store,
      }
      return new Answer(health, database.ok ? 200 : 503)
    },
  }),
  defineTradingOperation({
    name: 'trading.command-center',
    method: 'GET',
    group: 'root',
    path: '/command-center',
    tag: TAGS.v6,
    summary: 'Command center (HTML): the panels with the latest backtest\'s equity curve',
    output: z.string(),
    produces: { type: 'text/html; charset=utf-8', description: 'server-rendered page' },
    handler: (_input, call) => call.commandCenter(listedRunOwner(call)),
  }),
  defineTradingOperation({
    name: 'trading.system.inventory',
    method: 'GET',
    group: 'v11',
    path: '/system/inventory',
    summary: 'Datasets, strategies with parameter schemas, routes, and counts of runs, orders and fills',
    output: anyObject,
    handler: (_input, { system, host }) => system.inventory(host.routeTable.filter((r) => r.surface === 'trading')),
  }),
  defineTradingOperation({
    name: 'trading.system.health',
    method: 'GET',
    group: 'v11',
    path: '/system/health',
    summary: 'Platform health with per-component checks',
    output: v11HealthAnswer,
    responses: { 503: v11HealthAnswer },
    async handler(_input, { system }) {
      const health = await system.v11Health()
      return new Answer(health, health.status === 'down' ? 503 : 200)
    },
  }),
  defineTradingOperation({
    name: 'trading.system.mode',
    method: 'GET',
    group: 'v11',
    path: '/system/mode',
    summary: 'Execution mode: paper only, live trading off',
    output: modeAnswer,
    handler: () => ({ mode: 'paper' as const, live_trading: false as const, reason: MODE_REASON, broker: null }),
  }),
  defineTradingOperation({
    name: 'trading.system.verify',
    method: 'GET',
    group: 'v11',
    path: '/system/verify',
    summary: 'Integrity checks: the database\'s own (SQLite integrity and foreign keys; PostgreSQL index and constraint validity), dataset checksums, OHLC sanity, ledger re-derived from fills',
    description: 'Each check passes or fails with a detail; `ok` is true only when every check passes.',
    output: verifyAnswer,
    handler: (_input, { system }) => system.verify(),
  }),
  defineTradingOperation({
    name: 'trading.db.stats',
    method: 'GET',
    group: 'v11',
    path: '/db/stats',
    summary: 'Per-table row counts, the backend (SQLite or PostgreSQL) and its version; SQLite: pages, file and WAL size, journal mode; PostgreSQL: database and per-table sizes',
    output: dbStatsAnswer,
    // ~1 ms of synchronous pragmas and counts per answer, more as the database grows.
    ownTurn: true,
    handler: (_input, { system }) => system.dbStats(),
  }),
  defineTradingOperation({
    name: 'trading.v10.health',
    method: 'GET',
    group: 'v10',
    path: '/system/health',
    deprecated: true,
    summary: 'v10 health (deprecated: use /api/v11/system/health)',
    output: v10HealthAnswer,
    responses: { 503: v10HealthAnswer },
    async handler(_input, { system, service }) {
      const database = await system.databaseCheck()
      const health: z.infer<typeof v10HealthAnswer> = {
        status: database.ok ? 'ok' : 'down',
        version: V10_VERSION,
        api: 'v10',
        uptime: system.uptimeS(),
        db: database.ok ? 'ok' : 'error',
        datasets: database.ok ? await service.repo.datasetCount() : 0,
        deprecated: true,
        successor: V10_SUCCESSORS['/api/v10/system/health']!,
      }
      return new Answer(health, database.ok ? 200 : 503)
    },
  }),
  defineTradingOperation({
    name: 'trading.rpc.snapshot',
    method: 'GET',
    group: 'v6',
    path: '/rpc/snapshot',
    summary: 'Upstream RPC endpoints (RPC_ENDPOINTS, RPC_PUBLIC_ENDPOINTS) probed in the background: p50/p95 latency, success rate, last error and result',
    description: 'Probes: JSON-RPC `eth_blockNumber` POST by default, GET fallback when the POST gets 404/405/501; per URL `#jsonrpc=<method>` or `#get`. ' +
      'A sliding window of the last samples per endpoint. None configured: `configured: false` and an empty list.',
    output: anyObject,
    handler: (_input, { prober }) => ({ ...prober.snapshot() }),
  }),
  defineTradingOperation({
    name: 'trading.rpc.best',
    method: 'GET',
    group: 'v6',
    path: '/rpc/best',
    summary: 'The healthy endpoint with the lowest p50 latency (ties: success rate); a problem when none is configured or healthy',
    output: anyObject,
    handler(_input, { prober, config }) {
      const snapshot = prober.snapshot()
      if (!snapshot.configured) {
        throw new PlatformProblem(404, 'rpc_not_configured', 'No RPC endpoint configured',
          'RPC_ENDPOINTS and RPC_PUBLIC_ENDPOINTS are empty: there is no endpoint to choose from', { configured: false })
      }
      const best = prober.best()
      if (!best) {
        const retryAfterS = Math.max(1, Math.ceil(config.rpcProbeIntervalMs / 1000))
        throw new PlatformProblem(503, 'no_healthy_endpoint', 'No healthy RPC endpoint',
          `none of the ${snapshot.endpoints.length} endpoints is healthy (latest probe succeeded and ≥ 50 % success over the window)`, {
            retry_after_s: retryAfterS,
            endpoints: snapshot.endpoints.map((e) => ({ url: e.url, samples: e.samples, success_rate: e.success_rate, last_error: e.last_error })),
          })
      }
      return { endpoint: best, healthy: snapshot.endpoints.filter((e) => e.healthy).length, configured: snapshot.endpoints.length, rounds: snapshot.rounds }
    },
  }),
  defineTradingOperation({
    name: 'trading.command-center.panels',
    method: 'GET',
    group: 'v6',
    path: '/command-center/panels',
    summary: 'Command-center panels: positions and P&L, latest signals, recent runs, datasets, system health, RPC, latest equity curve',
    output: anyObject,
    handler: (_input, call) => call.system.panels(listedRunOwner(call)),
  }),
]
