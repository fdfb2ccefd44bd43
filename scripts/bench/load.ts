// bench:load — two phases against the real host, the mill kept saturated with long SAT jobs throughout:
//  1. 60 s of mixed traffic at 100 connections: throughput, latency, statuses (no errors but 429/503), RSS;
//  2. 15 s of the saturated mill alone: GET /api/v1/health latency from a monitoring-style probe (target p99 < 50 ms).
// In phase 1 the event loop itself is saturated by 100 connections, so a health request waits its turn behind them
// (≈ connections ÷ throughput); its latency there is printed for the record, not held to the 50 ms target.
import autocannon from 'autocannon'
import { rssMiB, spawnServer, stop } from './lib.js'
import { probeHealth, report, saturateMill } from './saturate.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60)
const PROBE_SECONDS = Number(process.env.BENCH_PROBE_SECONDS ?? 15)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100)
const THREADS = 1
const QUEUE = 4
const PROBE_INTERVAL_MS = 50

const json = { 'content-type': 'application/json' }
/** Each connection walks this list in order, so the mix is the same on every connection. */
const MIX: autocannon.Request[] = [
  { method: 'GET', path: '/api/v1/' },
  { method: 'GET', path: '/api/v1/ops' },
  { method: 'GET', path: '/api/v1/health' },
  { method: 'GET', path: '/api/v1/map' },
  { method: 'POST', path: '/api/v1/digest', headers: json, body: JSON.stringify({ content: 'the quick brown fox '.repeat(50), algorithms: ['sha256', 'blake2b512'] }) },
  { method: 'POST', path: '/api/v1/sat', headers: json, body: JSON.stringify({ dimacs: 'p cnf 3 4\n1 2 0\n-1 3 0\n-2 -3 0\n1 -3 0\n' }) },
  { method: 'POST', path: '/api/v1/jsonsat', headers: json, body: JSON.stringify({ formula: { and: [{ var: 'a' }, { or: [{ not: { var: 'a' } }, { var: 'b' }] }] } }) },
  { method: 'POST', path: '/api/v11/trading/backtest', headers: json, body: JSON.stringify({ dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 10, slow: 30 } }) },
  { method: 'GET', path: '/api/v11/system/health' },
  { method: 'GET', path: '/api/v1/admin/go-live/overview' },
]

async function main() {
  const { child, info } = await spawnServer<{ port: number; pid: number }>('scripts/bench/serve-app.ts', {
    MILL_THREADS: String(THREADS), MILL_QUEUE: String(QUEUE), RATE_LIMIT_PER_MIN: '0',
  })
  const base = `http://127.0.0.1:${info.port}`
  try {
    // Warm the routes once so the figures are of a running host, not of first calls.
    await autocannon({ url: base, connections: 10, amount: MIX.length * 20, requests: MIX })
    const rssBefore = rssMiB(info.pid)
    const signal = { stopping: false }
    const mill = saturateMill(base, signal, { flooders: THREADS + QUEUE + 3, timeoutMs: 2000, pauseAfterRefusalMs: 20 })
    await new Promise((r) => setTimeout(r, 500))

    console.log(`phase 1: ${SECONDS} s, ${CONNECTIONS} connections, ${MIX.length} routes in the mix; mill ${THREADS} thread(s), queue ${QUEUE}, flooded with SAT jobs`)
    const loadedSignal = { stopping: false }
    const loadedProbe = probeHealth(base, loadedSignal, PROBE_INTERVAL_MS)
    const result = await autocannon({ url: base, connections: CONNECTIONS, duration: SECONDS, requests: MIX, timeout: 30 })
    loadedSignal.stopping = true
    await loadedProbe.done
    const rssAfter = rssMiB(info.pid)

    const statuses = Object.entries(result.statusCodeStats as unknown as Record<string, { count: number }>)
      .map(([code, { count }]) => [Number(code), count] as const)
      .sort((a, b) => a[0] - b[0])
    // 429 is the rate limiter (off here) and 503 the mill's documented `occupied` refusal; anything else non-2xx is an error.
    const unexpected = statuses.filter(([code]) => code >= 400 && code !== 429 && code !== 503).reduce((n, [, c]) => n + c, 0)
    const errors = result.errors + result.timeouts
    console.log(`  ${result.requests.total} requests, ${result.requests.average.toFixed(0)} req/s`)
    console.log(`  latency p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms`)
    console.log(`  statuses: ${statuses.map(([code, n]) => `${code} × ${n}`).join(', ')}`)
    console.log(`  socket errors and timeouts: ${errors}; non-2xx other than 429/503: ${unexpected}  ${errors + unexpected === 0 ? 'OK' : 'FAILED'}`)
    console.log(`  RSS before ${rssBefore?.toFixed(1)} MiB, after ${rssAfter?.toFixed(1)} MiB`)
    report('  health probe behind 100 connections (for the record)', loadedProbe, null)

    console.log(`\nphase 2: ${PROBE_SECONDS} s, the mill alone saturated`)
    const probe = probeHealth(base, signal, PROBE_INTERVAL_MS)
    await new Promise((r) => setTimeout(r, PROBE_SECONDS * 1000))
    signal.stopping = true
    await Promise.all([mill.done, probe.done])
    const p99 = report('  health probe', probe, 50)

    const sat = Object.entries(mill.outcomes).map(([k, n]) => `${k} × ${n}`).join(', ')
    const occupied = Object.entries(mill.outcomes).filter(([k]) => k.endsWith('occupied')).reduce((n, [, c]) => n + c, 0)
    console.log(`\nmill flood over both phases (long SAT jobs): ${sat}; unanswered ${mill.hung()}`)
    console.log(`  saturated: ${occupied > 0 ? 'yes' : 'NO'} (${occupied} refused with occupied beyond the queue); every heavy request answered: ${mill.hung() === 0 ? 'yes' : 'NO'}`)
    if (errors + unexpected > 0 || mill.hung() > 0 || probe.failures() > 0 || occupied === 0 || !(p99 < 50)) process.exitCode = 1
  } finally {
    await stop(child)
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
