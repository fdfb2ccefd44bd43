// bench:http — cost of the envelope and hooks: GET /api/v1/health vs a bare Fastify route with the same data, one run.
import { spawn } from 'node:child_process'
import { request } from 'undici'
import { load, median, rssMiB, spawnServer, stop } from './lib.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

async function main() {
  const { child, info } = await spawnServer<{ full: number; bare: number }>('scripts/bench/serve-pair.ts', { MILL_THREADS: '1' })
  try {
    const fullUrl = `http://127.0.0.1:${info.full}/api/v1/health`
    const bareUrl = `http://127.0.0.1:${info.bare}/health`
    await load(fullUrl, { duration: 2 }) // warm-up both paths
    await load(bareUrl, { duration: 2 })
    const full: number[] = []
    const bare: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate so drift on a shared machine hits both sides alike.
      full.push((await load(fullUrl, { duration: SECONDS })).requestsPerSec)
      bare.push((await load(bareUrl, { duration: SECONDS })).requestsPerSec)
      console.log(`round ${round + 1}: full ${full.at(-1)!.toFixed(0)} req/s, bare ${bare.at(-1)!.toFixed(0)} req/s`)
    }
    const ratio = median(full) / median(bare)
    console.log(`\nGET /api/v1/health (envelope, hooks, plugins): ${median(full).toFixed(0)} req/s (median of ${ROUNDS} × ${SECONDS} s)`)
    console.log(`bare Fastify route, same data:               ${median(bare).toFixed(0)} req/s`)
    console.log(`ratio full/bare: ${ratio.toFixed(3)}  (target ≥ 0.90)  ${ratio >= 0.9 ? 'MET' : 'NOT MET'}`)
  } finally {
    await stop(child)
  }
  await startupAndRss()
}

/** Starts the real server, times the first answered request, then reads its RSS after 10k requests. */
async function startupAndRss() {
  const port = 18000 + Math.floor(Math.random() * 1000)
  const started = performance.now()
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: String(port), DATABASE_PATH: ':memory:', RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  })
  let firstMs: number | null = null
  for (let i = 0; i < 600 && firstMs === null; i++) {
    try {
      const res = await request(`http://127.0.0.1:${port}/api/v1/health`)
      await res.body.dump()
      if (res.statusCode === 200) firstMs = performance.now() - started
    } catch {
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  try {
    if (firstMs === null) throw new Error('server did not answer within 30 s')
    console.log(`\nstart to first response (tsx from source, :memory: store): ${firstMs.toFixed(0)} ms`)
    console.log(`RSS after start: ${rssMiB(server.pid!)?.toFixed(1)} MiB`)
    const r = await load(`http://127.0.0.1:${port}/api/v1/health`, { amount: 10_000, connections: 20 })
    console.log(`RSS after ${r.total} requests: ${rssMiB(server.pid!)?.toFixed(1)} MiB (errors ${r.errors}, non-2xx ${r.non2xx})`)
  } finally {
    await stop(server)
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
