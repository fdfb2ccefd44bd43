// bench:memory — the real server (node dist/src/server.js) against a bare Fastify, started alternately in one run:
// time from spawn to the first 200 on /health, resident memory when idle after start, after a first heavy operation
// (which starts a mill worker) and after 20k requests, and the server's own account of its memory by component; the
// default MEMORY_BUDGET_MIB is chosen from these figures (docs/benchmarks.md). Needs `npm run build` first.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { cpuMs, load, median, rssMiB, stop } from './lib.js'
import type { MemoryBudget } from '../../src/plugins/metrics.js'
import { DEFAULT_MEMORY_BUDGET_MIB } from '../../src/config.js'

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 3))
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000)
/** After the first answer: the server's start-up report runs 2 s after listening; idle is measured after it. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 4000)
const SERVER = 'dist/src/server.js'

interface Sample {
  startMs: number
  /** CPU (user + system, all threads) the process had used when it gave its first 200. */
  startCpuMs: number
  idleMiB: number
  /** After one backtest and one SAT solve through the mill (the server only; the bare Fastify has no heavy work). */
  heavyMiB: number
  loadedMiB: number
}

/** The first heavy work a user sends: a backtest on the 15-minute dataset with its trades and equity, and a SAT solve. */
async function heavyOps(port: number): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await request(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    await res.body.dump()
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`)
  }
  await post('/api/v11/trading/backtest', { dataset: 'SYN-15M', strategy: 'sma_cross', params: { fast: 10, slow: 30 }, include: ['trades', 'equity'] })
  await post('/api/v1/sat', { dimacs: 'p cnf 3 2\n1 -2 0\n2 3 0\n' })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function firstOk(url: string, child: ChildProcess, started: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`)
    try {
      const res = await request(url)
      await res.body.dump()
      if (res.statusCode === 200) return performance.now() - started
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 30_000) throw new Error(`${url}: no 200 within 30 s`)
    await sleep(5)
  }
}

/** A port the kernel just gave out as free (a random pick collided with other processes on this shared machine). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

async function measure(kind: 'server' | 'bare', dbPath: string, report?: (port: number) => Promise<void>): Promise<Sample> {
  const port = await freePort()
  const args = kind === 'server' ? [SERVER] : ['scripts/bench/bare-fastify.mjs']
  const started = performance.now()
  const child = spawn(process.execPath, args, {
    // Memory, not occupancy, is measured: a loaded machine's loop delay must not refuse the heavy operations.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: dbPath, RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'warn', MAX_EVENT_LOOP_DELAY_MS: '60000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    const url = `http://127.0.0.1:${port}/health`
    const startMs = await firstOk(url, child, started)
    const startCpuMs = cpuMs(child.pid!) ?? NaN
    await sleep(SETTLE_MS)
    const idleMiB = rssMiB(child.pid!) ?? NaN
    let heavyMiB = NaN
    if (kind === 'server') {
      await heavyOps(port)
      heavyMiB = rssMiB(child.pid!) ?? NaN
    }
    const r = await load(url, { amount: REQUESTS, connections: 50 })
    if (r.errors || r.non2xx) throw new Error(`${kind}: ${r.errors} errors, ${r.non2xx} non-2xx`)
    const loadedMiB = rssMiB(child.pid!) ?? NaN
    if (report) await report(port)
    return { startMs, startCpuMs, idleMiB, heavyMiB, loadedMiB }
  } finally {
    await stop(child)
  }
}

async function printBudget(port: number): Promise<void> {
  const res = await request(`http://127.0.0.1:${port}/api/v1/admin/command-post/summary`)
  const body = (await res.body.json()) as { data?: { memory_budget?: MemoryBudget } }
  const budget = body.data?.memory_budget
  if (!budget) throw new Error('the command post has no memory_budget')
  const mib = (b: number | null) => (b === null ? '   n/a' : (b / 1048576).toFixed(1).padStart(6))
  console.log('\nthe server\'s own account after the requests (/api/v1/admin/command-post/summary → data.memory_budget):')
  console.log(`  RSS ${mib(budget.rss_bytes)} MiB of a ${mib(budget.budget_bytes)} MiB budget, ${mib(budget.remaining_bytes)} MiB left`)
  for (const c of budget.components) console.log(`  ${c.component.padEnd(16)} ${mib(c.bytes)} MiB  ${c.note}`)
  console.log(`  main heap spaces (used/committed MiB): ${budget.heap_spaces.map((s) => `${s.space} ${mib(s.used_bytes).trim()}/${mib(s.committed_bytes).trim()}`).join(', ')}`)
}

async function main() {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first`)
  const dir = mkdtempSync(join(tmpdir(), 'ncm-bench-memory-'))
  const db = join(dir, 'hub.sqlite')
  const samples: Record<'server' | 'bare', Sample[]> = { server: [], bare: [] }
  try {
    console.log(`machine: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared); ${ROUNDS} alternating rounds, ${REQUESTS} requests at 50 connections`)
    await measure('server', db) // first start seeds the database; the rounds measure the steady restart
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<'server' | 'bare'> = round % 2 ? ['bare', 'server'] : ['server', 'bare']
      for (const kind of order) {
        samples[kind].push(await measure(kind, db, kind === 'server' && round === ROUNDS - 1 ? printBudget : undefined))
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS}\n`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const row = (label: string, pick: (s: Sample) => number, unit: string, target: string) => {
    const s = samples.server.map(pick)
    const b = samples.bare.map(pick)
    const ratios = s.map((v, i) => v / b[i]!)
    console.log(`${label.padEnd(34)} server ${median(s).toFixed(0).padStart(5)} ${unit} (${Math.min(...s).toFixed(0)}–${Math.max(...s).toFixed(0)})  ` +
      `bare Fastify ${median(b).toFixed(0).padStart(4)} ${unit}  ratio ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})  ${target}`)
  }
  console.log('\nmedians (min–max) over the rounds; ratios per round')
  row('start → first 200 on /health', (x) => x.startMs, 'ms', `target < 1000 ms: ${median(samples.server.map((x) => x.startMs)) < 1000 ? 'MET' : 'NOT MET'}`)
  row('CPU used by the first 200', (x) => x.startCpuMs, 'ms', '(no target: where the start time goes)')
  row('RSS idle after start', (x) => x.idleMiB, 'MiB', `target ≤ 100 MiB: ${median(samples.server.map((x) => x.idleMiB)) <= 100 ? 'MET' : 'NOT MET'}`)
  const heavy = samples.server.map((x) => x.heavyMiB)
  console.log(`${'RSS after a first backtest and SAT'.padEnd(34)} server ${median(heavy).toFixed(0).padStart(5)} MiB (${Math.min(...heavy).toFixed(0)}–${Math.max(...heavy).toFixed(0)})  (the mill's first worker started)`)
  row(`RSS after ${REQUESTS} requests`, (x) => x.loadedMiB, 'MiB', `target ≤ 120 MiB: ${median(samples.server.map((x) => x.loadedMiB)) <= 120 ? 'MET' : 'NOT MET'}`)
  const highest = Math.max(...samples.server.flatMap((x) => [x.idleMiB, x.heavyMiB, x.loadedMiB]))
  console.log(`\nhighest server RSS of any round and phase: ${highest.toFixed(0)} MiB; MEMORY_BUDGET_MIB default ${DEFAULT_MEMORY_BUDGET_MIB} ` +
    `(${highest <= DEFAULT_MEMORY_BUDGET_MIB ? 'covers it' : 'BELOW IT: readiness would warn on a fresh host'})`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
