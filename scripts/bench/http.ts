// bench:http — what the host costs per request, in one run: GET /api/v1/health and GET /health against a bare Fastify
// serving the same handler, a bisection (the bare Fastify plus one host feature at a time), an A/A control for the
// noise, the start time to a first answer and RSS after 10k requests. Memory and start are bench:memory's subject.
// Beside req/s it prints the server's CPU time per request (every variant lives in one process and only one is loaded
// at a time): on 2 cores the load generator shares the machine, so req/s also moves with what it costs the client to
// read an answer (its headers), while CPU per request is what the host itself spends.
import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { cpuMsOf } from '../cluster/process.js'
import { load, median, rssMiB, spawnServer, stop } from './lib.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1)

interface Targets {
  /** GET /api/v1/health: envelope, caller hooks, response schema, and the host-wide plugins (limiter on). */
  full: string
  /** GET /health of the platform, on the full app. */
  platform: string
  /** The same handler on a route of the same host outside the caller surface: host-wide plugins only. */
  hostBare: string
  /** An identical twin of hostBare (A/A control). */
  hostTwin: string
  /** The same handler on a Fastify with no plugins, in the same process. */
  bare: string
  /** The platform /health document served by the bare Fastify, measured per request with the same probes. */
  barePlatform: string
  /** Bisection: bare + the host's request id, + security headers and id echo, + metrics, + the limiter. */
  plusRequestId: string
  plusHeaders: string
  plusMetrics: string
  plusLimiter: string
}

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)

async function main() {
  const { child, info: urls } = await spawnServer<Targets>('scripts/bench/serve-pair.ts', { MILL_THREADS: '1' })
  const names = Object.keys(urls) as Array<keyof Targets>
  const rps = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<keyof Targets, number[]>
  /** Each round's server CPU (ms), length (s) and answers: per-request CPU is worked out once the idle rate is known. */
  const rounds = Object.fromEntries(names.map((n) => [n, [] as Array<{ cpuMs: number; seconds: number; total: number }>])) as
    Record<keyof Targets, Array<{ cpuMs: number; seconds: number; total: number }>>
  // What the server spends with no request (timers, samplers, the mill's idle worker) is taken off each round's CPU:
  // measured before and after the rounds, the lower rate (start-up work such as the admin collectors' scan may still
  // be running in the first window).
  const idleRate = async () => {
    const from = cpuMsOf(child.pid!)
    const started = performance.now()
    await sleep(2000)
    return (cpuMsOf(child.pid!) - from) / ((performance.now() - started) / 1000)
  }
  let idleCpuMsPerS = 0
  try {
    for (const name of names) await load(urls[name], { duration: 1, connections: CONNECTIONS }) // warm-up every path
    const idleBefore = await idleRate()
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse()
      for (const name of order) {
        const cpuFrom = cpuMsOf(child.pid!)
        const started = performance.now()
        const r = await load(urls[name], { duration: SECONDS, connections: CONNECTIONS })
        rounds[name].push({ cpuMs: cpuMsOf(child.pid!) - cpuFrom, seconds: (performance.now() - started) / 1000, total: r.total })
        if (r.errors || r.non2xx) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx answers`)
        rps[name].push(r.requestsPerSec)
      }
      process.stderr.write(`\rround ${round + 1}/${ROUNDS}`)
    }
    process.stderr.write('\n')
    idleCpuMsPerS = Math.min(idleBefore, await idleRate())
  } finally {
    await stop(child)
  }
  const cpu = Object.fromEntries(names.map((n) => [n, rounds[n].map((r) => ((r.cpuMs - idleCpuMsPerS * r.seconds) * 1000) / r.total)])) as
    Record<keyof Targets, number[]>
  const m = (name: keyof Targets) => median(rps[name])
  /** Per-round ratio a/b of `of` (both measured in the same round): median and min–max. */
  const ratio = (a: keyof Targets, b: keyof Targets, of = rps) => {
    const xs = of[a].map((v, i) => v / of[b][i]!)
    return { median: median(xs), lo: Math.min(...xs), hi: Math.max(...xs) }
  }
  const fmt = (r: { median: number; lo: number; hi: number }) => `${r.median.toFixed(2)}× (${r.lo.toFixed(2)}–${r.hi.toFixed(2)})`
  // CPU ratios are baseline over target (the target's speed in CPU terms), so both columns read alike: 1 is free.
  const line = (label: string, name: keyof Targets, against?: keyof Targets, extra = '') =>
    console.log(`${label.padEnd(62)} ${m(name).toFixed(0).padStart(6)} req/s${against ? `  ${fmt(ratio(name, against))}` : ''.padEnd(20)}` +
      `  ${median(cpu[name]).toFixed(1).padStart(5)} µs CPU/req${against ? `  ${fmt(ratio(against, name, cpu))}` : ''.padEnd(20)}` +
      `${against ? `  of ${against}` : ''}${extra}`)
  console.log(`\nmedians of ${ROUNDS} alternating rounds of ${SECONDS} s at ${CONNECTIONS} connections; ratios per round (min–max); ` +
    `server CPU per request less its idle ${idleCpuMsPerS.toFixed(0)} ms/s:`)
  line('bare Fastify, no plugins, the health handler', 'bare')
  line('  + the host\'s request id (genReqId)', 'plusRequestId', 'bare')
  line('  + security headers and the request id echo (one hook)', 'plusHeaders', 'bare')
  line('  + metrics (HdrHistogram per surface, per-route cells)', 'plusMetrics', 'bare')
  line('  + the limiter (in-memory, synchronous)', 'plusLimiter', 'bare')
  line('same handler, bare route on the full host', 'hostBare', 'bare')
  line('same handler, its identical twin route (A/A control)', 'hostTwin', 'hostBare')
  const full = ratio('full', 'bare')
  line('GET /api/v1/health (+ envelope, caller hooks, compiled schema)', 'full', 'bare', `  target ≥ 0.80: ${full.median >= 0.8 ? 'MET' : 'NOT MET'}`)
  line('bare Fastify, the platform /health document (same probes)', 'barePlatform')
  const platform = ratio('platform', 'barePlatform')
  line('GET /health (platform) on the full host', 'platform', 'barePlatform', `  target ≥ 0.85: ${platform.median >= 0.85 ? 'MET' : 'NOT MET'}`)
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
