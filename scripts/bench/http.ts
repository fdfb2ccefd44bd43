// bench:http — what the caller envelope and hooks cost: GET /api/v1/health against the same handler on a bare route of
// the same host, in one run; also what the host-wide plugins cost against a bare Fastify, an A/A control for the noise,
// the start time to a first answer and RSS after 10k requests.
import { spawn } from 'node:child_process'
import { request } from 'undici'
import { load, median, rssMiB, spawnServer, stop } from './lib.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1)

interface Targets {
  /** GET /api/v1/health: envelope, caller hooks, response schema, and the host-wide plugins. */
  full: string
  /** The same handler on a route of the same host outside the caller surface: host-wide plugins only. */
  hostBare: string
  /** An identical twin of hostBare (A/A control). */
  hostTwin: string
  /** The same handler on a Fastify with no plugins, in the same process. */
  bare: string
}

async function main() {
  const { child, info: urls } = await spawnServer<Targets>('scripts/bench/serve-pair.ts', { MILL_THREADS: '1' })
  const names = Object.keys(urls) as Array<keyof Targets>
  const rps: Record<keyof Targets, number[]> = { full: [], hostBare: [], hostTwin: [], bare: [] }
  try {
    for (const name of names) await load(urls[name], { duration: 2 }) // warm-up every path
    // Many short rounds, alternating the order, so drift on a shared machine hits every path alike.
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse()
      for (const name of order) rps[name].push((await load(urls[name], { duration: SECONDS })).requestsPerSec)
      process.stderr.write(`\rround ${round + 1}/${ROUNDS}`)
    }
    process.stderr.write('\n')
  } finally {
    await stop(child)
  }
  const m = (name: keyof Targets) => median(rps[name])
  const line = (label: string, name: keyof Targets) => console.log(`${label.padEnd(58)} ${m(name).toFixed(0).padStart(6)} req/s`)
  const ratio = (a: keyof Targets, b: keyof Targets) => m(a) / m(b)
  console.log(`\nmedians of ${ROUNDS} alternating rounds of ${SECONDS} s, 20 connections:`)
  line('GET /api/v1/health (envelope, caller hooks, schema + host)', 'full')
  line('same handler, bare route on the same host', 'hostBare')
  line('same handler, its identical twin route (A/A control)', 'hostTwin')
  line('same handler, bare Fastify without plugins', 'bare')
  // The baseline pools both twins' rounds: twice the samples, and neither twin's luck decides the verdict.
  const hostBaseline = median([...rps.hostBare, ...rps.hostTwin])
  const envelopeRatio = m('full') / hostBaseline
  console.log(`\nA/A control twin/bare:                     ${ratio('hostTwin', 'hostBare').toFixed(3)}  (1.000 ± the run's noise)`)
  console.log(`envelope and caller hooks, full/host-bare (both twins' rounds): ${envelopeRatio.toFixed(3)}  (target ≥ 0.90)  ${envelopeRatio >= 0.9 ? 'MET' : 'NOT MET'}`)
  console.log(`host plugins (security headers, request id, metrics), host-bare/bare: ${(hostBaseline / m('bare')).toFixed(3)}  (no target; printed for the record)`)
  console.log(`whole host, full/bare Fastify:              ${ratio('full', 'bare').toFixed(3)}  (no target; printed for the record)`)
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
