// bench:mill — GET /api/v1/health latency while the mill is saturated with long SAT jobs (target p99 < 50 ms).
import { spawnServer, stop } from './lib.js'
import { probeHealth, report, saturateMill, type Signal } from './saturate.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const THREADS = 1
const QUEUE = 4

async function main() {
  const { child, info } = await spawnServer<{ port: number }>('scripts/bench/serve-app.ts', {
    MILL_THREADS: String(THREADS), MILL_QUEUE: String(QUEUE), JOBS_PER_CLIENT: String(QUEUE + THREADS), RATE_LIMIT_PER_MIN: '0',
  })
  const base = `http://127.0.0.1:${info.port}`
  const signal: Signal = { stopping: false }
  try {
    // Keep the mill full: more SAT jobs in flight than threads + queue, each with a long budget.
    const mill = saturateMill(base, signal, { flooders: THREADS + 6, timeoutMs: 3000, pauseAfterRefusalMs: 50 })
    await new Promise((r) => setTimeout(r, 1000))
    const probe = probeHealth(base, signal, 10)
    await new Promise((r) => setTimeout(r, SECONDS * 1000))
    signal.stopping = true
    await Promise.all([mill.done, probe.done])
    const jobs = Object.entries(mill.outcomes).map(([k, n]) => `${k} × ${n}`).join(', ')
    console.log(`mill: ${THREADS} thread(s), queue ${QUEUE}, SAT jobs over ${SECONDS} s: ${jobs}; unanswered ${mill.hung()}`)
    report('while saturated', probe, 50)
  } finally {
    signal.stopping = true
    await stop(child)
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
