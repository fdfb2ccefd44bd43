// Live request metrics of the whole host (SPEC §4 command post): counts by surface/route/status and latency percentiles.
// Latency goes into HdrHistograms (hdr-histogram-js): percentiles to 2 significant digits (1 %) in bounded memory,
// recorded in O(1) — prom-client's histograms would only interpolate p50/p95/p99 from fixed buckets. The Prometheus
// text is rendered here from the same figures (a `summary` with quantiles), so /metrics and the JSON never disagree.
import { DEFAULT_MEMORY_BUDGET_MIB } from '../config.js'
import fp from 'fastify-plugin'
// The JavaScript histogram alone: the package's index also loads its log reader/writer, pako and a WebAssembly build
// (~23 ms of start-up CPU and ~10 MiB of RSS that no path here uses).
import { constructorFromBucketSize } from 'hdr-histogram-js/dist/JsHistogramFactory.js'
import { getHeapSpaceStatistics } from 'node:v8'
import type { FastifyInstance, FastifyReply, onResponseHookHandler } from 'fastify'
import { surfaceOf, type SurfaceName } from './route-table.js'
import type { MillStats } from '../mill/pool.js'
import type { PoolUse } from '../store/index.js'
import type { Occupancy } from '../http/envelope.js'
import { escapeLabel } from '../http/prometheus.js'

export const SURFACES: readonly SurfaceName[] = ['caller', 'trading', 'admin', 'docs']
export const UNMATCHED_ROUTE = '(unmatched)'
export const HISTOGRAM_SOURCE = 'hdr-histogram-js (HdrHistogram, 2 significant digits, values in µs, capped at 60 s)'

export interface LatencySummary {
  count: number
  p50_ms: number | null
  p95_ms: number | null
  p99_ms: number | null
  max_ms: number | null
  mean_ms: number | null
}

export interface RouteStats {
  surface: SurfaceName
  method: string
  route: string
  status: number
  count: number
  mean_ms: number
  max_ms: number
}

export interface MetricsSnapshot {
  started_at: string
  uptime_s: number
  occupancy: Occupancy
  requests: {
    total: number
    by_surface: Record<SurfaceName, { count: number; server_errors: number; refusals: number; latency: LatencySummary }>
    by_status: Record<string, number>
    by_route: RouteStats[]
  }
  latency: LatencySummary & { histogram: string }
  /** Server faults (5xx but the 501/503 refusals) over all answers; null before the first request. */
  error_rate: number | null
  /** Refusals by design (4xx, 501, 503) over all answers; null before the first request. */
  refusal_rate: number | null
  event_loop: { delay_ms: number; utilization: number }
  memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number; external_bytes: number; array_buffers_bytes: number }
  memory_budget: MemoryBudget
  mill: MillStats
  database: { backend: 'sqlite' | 'postgres'; file_bytes: number | null; wal_bytes: number | null; pool: PoolUse | null; note: string | null }
  notes: string[]
}

/** The resident memory against MEMORY_BUDGET_MIB, split by who holds it. */
export interface MemoryBudget {
  budget_bytes: number
  rss_bytes: number
  /** budget − RSS; negative when over. */
  remaining_bytes: number
  components: Array<{ component: string; bytes: number | null; note: string }>
  /** The event-loop thread's V8 heap by space (new, old, code, large objects…). */
  heap_spaces: Array<{ space: string; used_bytes: number; committed_bytes: number }>
}

/** RSS by component: the main V8 heap, off-heap buffers, the mill workers' heaps (they parse large bodies too), and what remains native. */
export function memoryBudget(
  budgetBytes: number,
  mill: { memory?(): { workers: number; heap_bytes: number } },
): MemoryBudget {
  const m = process.memoryUsage()
  const workers = mill.memory?.() ?? null
  const native = m.rss - m.heapTotal - m.external - (workers?.heap_bytes ?? 0)
  return {
    budget_bytes: budgetBytes,
    rss_bytes: m.rss,
    remaining_bytes: budgetBytes - m.rss,
    components: [
      { component: 'main_heap_used', bytes: m.heapUsed, note: 'live objects on the event-loop thread\'s V8 heap (routes, schemas, caches)' },
      { component: 'main_heap_free', bytes: m.heapTotal - m.heapUsed, note: 'V8 heap committed but not in use (garbage not yet collected, headroom)' },
      { component: 'external', bytes: m.external, note: `off-heap memory V8 tracks: Buffers and typed arrays (${m.arrayBuffers} bytes of array buffers)` },
      workers
        ? { component: 'mill_workers', bytes: workers.heap_bytes, note: `committed V8 heaps of ${workers.workers} live mill worker(s), as each last wrote it` }
        : { component: 'mill_workers', bytes: null, note: 'this mill does not report its workers\' memory' },
      {
        component: 'native',
        bytes: Math.max(0, native),
        note: 'the rest of RSS: Node and V8 code, thread stacks, malloc arenas (SQLite page cache, HTTP parsers), mapped files',
      },
    ],
    heap_spaces: getHeapSpaceStatistics().map((s) => ({ space: s.space_name, used_bytes: s.space_used_size, committed_bytes: s.space_size })),
  }
}

export interface Metrics {
  snapshot(): MetricsSnapshot
  prometheus(): string
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics
  }
}

/** Longest latency told apart; slower answers count as this. Past the mill's longest budget plus its grace. */
const MAX_TRACKED_MICROS = 120_000_000
// Reading a percentile walks every bucket: 3 digits over an hour made a /command-post snapshot cost ~17 ms of event
// loop; 2 digits (1 % resolution, plenty for p50/p95/p99) up to 2 minutes cost about a tenth of that.
/** What hdr-histogram-js's `build` makes of these options: a 32-bit-bucket JsHistogram that does not resize. */
const Int32Histogram = constructorFromBucketSize(32)
const newHistogram = () => {
  const histogram = new Int32Histogram(1, MAX_TRACKED_MICROS, 2)
  histogram.autoResize = false
  return histogram
}
type Histogram = ReturnType<typeof newHistogram>

/** Answers counted for the whole host or one surface. */
interface Tally {
  histogram: Histogram
  count: number
  /** Exact sum of the recorded latencies: the mean from it, not from a walk over the histogram's buckets. */
  sumMicros: number
  serverErrors: number
  refusals: number
}

const newTally = (): Tally => ({ histogram: newHistogram(), count: 0, sumMicros: 0, serverErrors: 0, refusals: 0 })

/**
 * 5xx answers that are refusals by design, not faults: 501 token_completion_unavailable, 503 occupied / timeout /
 * draining. They count with the 4xx refusals, so a 5xx alert (error_rate) means something broke.
 */
export const REFUSAL_5XX: ReadonlySet<number> = new Set([501, 503])

function count(tally: Tally, micros: number, status: number): void {
  tally.histogram.recordValue(micros)
  tally.count++
  tally.sumMicros += micros
  if (status >= 500 && !REFUSAL_5XX.has(status)) tally.serverErrors++
  else if (status >= 400) tally.refusals++
}

interface RouteCell {
  surface: SurfaceName
  method: string
  route: string
  status: number
  count: number
  totalMs: number
  maxMs: number
}

export interface MetricsOptions {
  /** Wall clock for `started_at` (ms since epoch); defaults to Date.now. */
  now?: () => number
  /** MEMORY_BUDGET_MIB in bytes; defaults to 120 MiB. */
  memoryBudgetBytes?: number
}

async function metricsPlugin(app: FastifyInstance, opts: MetricsOptions) {
  const now = opts.now ?? Date.now
  const startedAt = now()
  const bySurface = new Map<SurfaceName, Tally>(SURFACES.map((s) => [s, newTally()]))
  const routes: RouteCell[] = []
  /** Cells by route pattern, then method, then status: found without building a key string per request. */
  const cells = new Map<string, Map<string, Map<number, RouteCell>>>()
  const byStatus = new Map<number, number>()

  /** Counts one answer of `route` (a registered pattern, or UNMATCHED_ROUTE) on `surface`. */
  const record = (route: string, surface: SurfaceName, method: string, reply: FastifyReply) => {
    const ms = reply.elapsedTime
    const status = reply.statusCode
    const micros = Math.max(1, Math.min(MAX_TRACKED_MICROS, Math.round(ms * 1000)))
    count(bySurface.get(surface)!, micros, status)
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1)
    let byMethod = cells.get(route)
    if (!byMethod) cells.set(route, (byMethod = new Map()))
    let byCode = byMethod.get(method)
    if (!byCode) byMethod.set(method, (byCode = new Map()))
    let cell = byCode.get(status)
    if (!cell) {
      cell = { surface, method, route, status, count: 0, totalMs: 0, maxMs: 0 }
      byCode.set(status, cell)
      routes.push(cell)
    }
    cell.count++
    cell.totalMs += ms
    if (ms > cell.maxMs) cell.maxMs = ms
  }

  // Each route gets its own onResponse callback knowing its pattern and surface, so an answer is counted without
  // reading req.routeOptions (an object built on every read). Labels come from the registered route pattern, never
  // the raw URL, so the set of series stays bounded. Routes are counted when registered after this plugin (every
  // route of the host is). Synchronous callbacks: an async hook would cost a promise per answer.
  app.addHook('onRoute', (route) => {
    const pattern = route.url
    const surface = surfaceOf(pattern)
    const counted: onResponseHookHandler = (req, reply, done) => {
      record(pattern, surface, req.method, reply)
      done()
    }
    const own = route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]
    route.onResponse = [...own, counted]
  })
  // Requests no route matched: by the surface their path belongs to.
  app.addHook('onResponse', (req, reply, done) => {
    if (req.is404) record(UNMATCHED_ROUTE, surfaceOf(req.url.split('?')[0]!), req.method, reply)
    done()
  })

  const snapshot = (): MetricsSnapshot => {
    const memory = process.memoryUsage()
    const { store } = app
    const sizes = store.fileSizes()
    const inMemory = store.path === ':memory:'
    const notes: string[] = []
    // The whole host is the sum of its surfaces: one histogram record per request, the sum only when asked.
    const overall = newTally()
    for (const s of bySurface.values()) {
      overall.histogram.add(s.histogram)
      overall.count += s.count
      overall.sumMicros += s.sumMicros
      overall.serverErrors += s.serverErrors
      overall.refusals += s.refusals
    }
    const total = overall.count
    if (total === 0) notes.push('no request answered yet: latency percentiles and rates are null')
    return {
      started_at: new Date(startedAt).toISOString(),
      uptime_s: Math.round((now() - startedAt) / 1000),
      occupancy: app.admission.state(),
      requests: {
        total,
        by_surface: Object.fromEntries(
          SURFACES.map((name) => {
            const s = bySurface.get(name)!
            return [name, { count: s.count, server_errors: s.serverErrors, refusals: s.refusals, latency: summarise(s) }]
          }),
        ) as MetricsSnapshot['requests']['by_surface'],
        by_status: Object.fromEntries([...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
        by_route: [...routes]
          .sort((a, b) => b.count - a.count || (a.route < b.route ? -1 : 1))
          .map((c) => ({
            surface: c.surface,
            method: c.method,
            route: c.route,
            status: c.status,
            count: c.count,
            mean_ms: round3(c.totalMs / c.count),
            max_ms: round3(c.maxMs),
          })),
      },
      latency: { ...summarise(overall), histogram: HISTOGRAM_SOURCE },
      error_rate: total === 0 ? null : overall.serverErrors / total,
      refusal_rate: total === 0 ? null : overall.refusals / total,
      event_loop: {
        delay_ms: round3(app.admission.eventLoopDelayMs()),
        utilization: round3(app.admission.eventLoopUtilization()),
      },
      memory: {
        rss_bytes: memory.rss,
        heap_used_bytes: memory.heapUsed,
        heap_total_bytes: memory.heapTotal,
        external_bytes: memory.external,
        array_buffers_bytes: memory.arrayBuffers,
      },
      memory_budget: memoryBudget(opts.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET_MIB * 1024 * 1024, app.mill),
      mill: app.mill.stats(),
      database: {
        backend: store.backend,
        file_bytes: sizes.file,
        wal_bytes: sizes.wal,
        pool: store.poolUse(),
        note: store.backend === 'postgres' ? 'PostgreSQL: no file here; database and table sizes are in /api/v11/db/stats'
          : inMemory ? 'in-memory database: no file to measure' : sizes.file === null ? 'the database file could not be read' : null,
      },
      notes,
    }
  }

  app.decorate('metrics', { snapshot, prometheus: () => renderPrometheus(snapshot()) } satisfies Metrics)
}

function summarise({ histogram: h, count, sumMicros }: Tally): LatencySummary {
  if (count === 0) return { count: 0, p50_ms: null, p95_ms: null, p99_ms: null, max_ms: null, mean_ms: null }
  const ms = (micros: number) => round3(micros / 1000)
  // A percentile is the top of its histogram bucket, which can lie above the largest value recorded: cap it there.
  const at = (percentile: number) => ms(Math.min(h.getValueAtPercentile(percentile), h.maxValue))
  return {
    count,
    p50_ms: at(50),
    p95_ms: at(95),
    p99_ms: at(99),
    max_ms: ms(h.maxValue),
    mean_ms: ms(sumMicros / count),
  }
}

const round3 = (x: number) => Math.round(x * 1000) / 1000

const labels = (pairs: Record<string, string | number>) =>
  `{${Object.entries(pairs).map(([k, v]) => `${k}="${escapeLabel(String(v))}"`).join(',')}}`

function renderPrometheus(snap: MetricsSnapshot): string {
  const out: string[] = []
  const family = (name: string, type: 'counter' | 'gauge' | 'summary', help: string) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
  }
  const sample = (name: string, value: number, pairs?: Record<string, string | number>) => {
    out.push(`${name}${pairs ? labels(pairs) : ''} ${Number.isFinite(value) ? value : 'NaN'}`)
  }

  family('ncm_http_requests_total', 'counter', 'Requests answered, by surface, method, route pattern and status code.')
  for (const r of snap.requests.by_route) {
    sample('ncm_http_requests_total', r.count, { surface: r.surface, method: r.method, route: r.route, status: r.status })
  }
  family('ncm_http_request_duration_seconds', 'summary', 'Time to answer a request, by surface (HdrHistogram quantiles).')
  for (const surface of SURFACES) {
    const { latency } = snap.requests.by_surface[surface]
    const seconds = (ms: number | null) => (ms === null ? NaN : ms / 1000)
    sample('ncm_http_request_duration_seconds', seconds(latency.p50_ms), { surface, quantile: 0.5 })
    sample('ncm_http_request_duration_seconds', seconds(latency.p95_ms), { surface, quantile: 0.95 })
    sample('ncm_http_request_duration_seconds', seconds(latency.p99_ms), { surface, quantile: 0.99 })
    sample('ncm_http_request_duration_seconds_sum', ((latency.mean_ms ?? 0) * latency.count) / 1000, { surface })
    sample('ncm_http_request_duration_seconds_count', latency.count, { surface })
  }
  family('ncm_http_error_ratio', 'gauge', 'Share of answers that were server faults (5xx except the 501/503 refusals) since start.')
  sample('ncm_http_error_ratio', snap.error_rate ?? NaN)
  family('ncm_http_refusal_ratio', 'gauge', 'Share of answers that were refusals by design (4xx, 501, 503) since start.')
  sample('ncm_http_refusal_ratio', snap.refusal_rate ?? NaN)
  family('ncm_event_loop_delay_seconds', 'gauge', 'Event-loop delay measured by the admission sampler.')
  sample('ncm_event_loop_delay_seconds', snap.event_loop.delay_ms / 1000)
  family('ncm_event_loop_utilization_ratio', 'gauge', 'Event-loop utilisation (0..1).')
  sample('ncm_event_loop_utilization_ratio', snap.event_loop.utilization)
  family('ncm_occupancy', 'gauge', 'Admission mode of the host: 1 for the current state.')
  for (const state of ['live-bound', 'shedding', 'draining'] as const) sample('ncm_occupancy', snap.occupancy === state ? 1 : 0, { state })
  family('ncm_process_memory_bytes', 'gauge', 'Process memory by kind (process.memoryUsage).')
  for (const [kind, value] of Object.entries(snap.memory)) sample('ncm_process_memory_bytes', value, { kind: kind.replace(/_bytes$/, '') })
  family('ncm_mill_threads', 'gauge', 'Worker threads of the mill.')
  sample('ncm_mill_threads', snap.mill.threads)
  family('ncm_mill_queue_size', 'gauge', 'Tasks waiting for a mill worker.')
  sample('ncm_mill_queue_size', snap.mill.queue_size)
  family('ncm_mill_running', 'gauge', 'Tasks given to a mill worker now (ncm_mill_queue_size: those waiting for one).')
  sample('ncm_mill_running', snap.mill.running)
  family('ncm_mill_utilization_ratio', 'gauge', 'Fraction of mill capacity (threads × time since start) spent running tasks.')
  sample('ncm_mill_utilization_ratio', snap.mill.utilization)
  family('ncm_mill_completed_total', 'counter', 'Tasks the mill completed.')
  sample('ncm_mill_completed_total', snap.mill.completed)
  family('ncm_mill_timeouts_total', 'counter', 'Tasks stopped at their hard deadline.')
  sample('ncm_mill_timeouts_total', snap.mill.timeouts)
  family('ncm_mill_rejected_total', 'counter', 'Tasks refused because the queue was full.')
  sample('ncm_mill_rejected_total', snap.mill.rejected_full)
  if (snap.database.file_bytes !== null) {
    family('ncm_database_bytes', 'gauge', 'Size of the SQLite database file and its WAL.')
    sample('ncm_database_bytes', snap.database.file_bytes, { file: 'main' })
    if (snap.database.wal_bytes !== null) sample('ncm_database_bytes', snap.database.wal_bytes, { file: 'wal' })
  }
  if (snap.database.pool) {
    family('ncm_database_pool_connections', 'gauge', 'PostgreSQL pool of this process: open connections by state, and statements waiting for one.')
    const { total, idle, waiting } = snap.database.pool
    sample('ncm_database_pool_connections', total - idle, { state: 'busy' })
    sample('ncm_database_pool_connections', idle, { state: 'idle' })
    sample('ncm_database_pool_connections', waiting, { state: 'waiting' })
  }
  family('ncm_uptime_seconds', 'gauge', 'Seconds since the metrics plugin started.')
  sample('ncm_uptime_seconds', snap.uptime_s)
  return out.join('\n') + '\n'
}

export default fp(metricsPlugin, {
  name: 'ncm-metrics',
  fastify: '5.x',
  dependencies: ['ncm-store', 'ncm-mill', 'ncm-admission'],
})
