// bench:mill — GET /api/v1/health latency while the mill is saturated with long SAT jobs (target p99 < 50 ms).
import { request } from 'undici'
import { spawnServer, stop } from './lib.js'
import { pigeonhole } from './pigeonhole.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const THREADS = 1

async function main() {
  const { child, info } = await spawnServer<{ port: number }>('scripts/bench/serve-app.ts', {
    MILL_THREADS: String(THREADS), MILL_QUEUE: '4', RATE_LIMIT_PER_MIN: '0',
  })
  const base = `http://127.0.0.1:${info.port}`
  const dimacs = pigeonhole(11)
  const outcomes = new Map<string, number>()
  let stopping = false
  // Keep the mill full: more SAT jobs in flight than threads + queue, each with a long budget.
  const flooders = Array.from({ length: THREADS + 6 }, async () => {
    while (!stopping) {
      const res = await request(`${base}/api/v1/sat`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dimacs, timeout_ms: 3000 }),
      })
      const body = (await res.body.json()) as { ok: boolean; data?: { status: string }; refuse?: { code: string } }
      const key = body.ok ? `ok:${body.data!.status}` : `refused:${body.refuse!.code}`
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
      if (!body.ok) await new Promise((r) => setTimeout(r, 50))
    }
  })
  await new Promise((r) => setTimeout(r, 1000))
  const latencies: number[] = []
  let busySamples = 0
  const end = Date.now() + SECONDS * 1000
  while (Date.now() < end) {
    const t = performance.now()
    const res = await request(`${base}/api/v1/health`)
    const body = (await res.body.json()) as { data: { checks: Record<string, Array<{ observedValue: number }>> } }
    latencies.push(performance.now() - t)
    if ((body.data.checks['mill:utilization']?.[0]?.observedValue ?? 0) > 0) busySamples++
    await new Promise((r) => setTimeout(r, 10))
  }
  stopping = true
  await Promise.all(flooders)
  await stop(child)
  latencies.sort((a, b) => a - b)
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!
  console.log(`mill: ${THREADS} thread(s), queue 4, SAT jobs: ${[...outcomes].map(([k, n]) => `${k} ${n}`).join(', ')}`)
  console.log(`GET /api/v1/health while saturated: ${latencies.length} requests over ${SECONDS} s`)
  console.log(`  p50 ${q(0.5).toFixed(2)} ms  p95 ${q(0.95).toFixed(2)} ms  p99 ${q(0.99).toFixed(2)} ms  max ${latencies.at(-1)!.toFixed(2)} ms`)
  console.log(`  p99 target < 50 ms: ${q(0.99) < 50 ? 'MET' : 'NOT MET'}`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
