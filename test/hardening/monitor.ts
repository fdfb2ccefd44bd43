// A health-latency monitor for real-socket hardening tests: a loop of GET /api/v1/health beside a hostile request.
// Tests assert that every health check is answered and print the latencies; they do not bound them, because on the
// shared 2-core machine (load 15+, the client in the same process) a bound loose enough to hold is not a check.
// The 50 ms target is held by `npm run bench:load` (hostile phase).
import { existsSync, readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { START_REPORT_DELAY_MS } from '../../src/admin/collectors.js'
import { cpuMsOfStat } from '../process.js'

export interface HealthMonitor {
  /** Stops the loop; resolves with every latency recorded (ms) and how many health checks failed. */
  stop(): Promise<{ latencies: number[]; failures: number; max: number; p99: number; summary: string }>
}

/** Starts a loop of health requests, one at a time, `gapMs` apart. */
export function monitorHealth(base: string, gapMs = 5): HealthMonitor {
  const latencies: number[] = []
  let failures = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const start = performance.now()
      try {
        const res = await request(`${base}/api/v1/health`)
        await res.body.dump()
        if (res.statusCode !== 200) failures++
      } catch {
        failures++
      }
      latencies.push(performance.now() - start)
      await new Promise((r) => setTimeout(r, gapMs))
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      const sorted = [...latencies].sort((a, b) => a - b)
      const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0
      const max = sorted[sorted.length - 1] ?? 0
      const summary = `health max ${max.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${latencies.length} checks`
      return { latencies, failures, max, p99, summary }
    },
  }
}

/** POSTs a raw body over the socket; answers the status and the parsed JSON body. */
export async function postRaw(
  base: string, path: string, body: string, type = 'application/json', headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await request(`${base}${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body })
  const text = await res.body.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: kept as text
  }
  return { status: res.statusCode, body: parsed }
}

export interface LoopWatch {
  /** Stops watching; the most CPU time of the loop's thread (and wall time) between two turns of the loop, in ms. */
  stop(): { maxCpuMs: number; maxWallMs: number; summary: string }
}

/** Linux: the main thread's own CPU time (its task id is the process id), in ms at the kernel's 10 ms resolution. */
const MAIN_THREAD_STAT = `/proc/self/task/${process.pid}/stat`
/**
 * The scheduler's count of the same thread's run time (se.sum_exec_runtime, in ms), brought up to date at each tick
 * and switch: within a tick (~4 ms) of the CPU time, where stat's 10 ms units read a 12 ms stretch as 10 or 20.
 */
const MAIN_THREAD_SCHED = `/proc/self/task/${process.pid}/sched`
const SUM_EXEC_RUNTIME = /se\.sum_exec_runtime\s*:\s*([\d.]+)/
const schedCpuMs = (): number => Number(SUM_EXEC_RUNTIME.exec(readFileSync(MAIN_THREAD_SCHED, 'utf8'))?.[1])
const mainThreadCpuMs = existsSync(MAIN_THREAD_SCHED) && Number.isFinite(schedCpuMs()) ? schedCpuMs : () => cpuMsOfStat(MAIN_THREAD_STAT)

/**
 * Watches this process's event loop (the test's host runs in it) with a 1 ms timer: the longest stretch between two
 * turns in CPU time of the loop's own thread, which neither a busy shared machine nor the mill's threads stretch the
 * way they stretch wall time, so a bound on it checks the code. Off Linux it is the wall time.
 */
export function watchLoop(): LoopWatch {
  const cpuNow = existsSync(MAIN_THREAD_STAT) ? mainThreadCpuMs : () => performance.now()
  let maxCpuMs = 0
  let maxWallMs = 0
  let cpu = cpuNow()
  let wall = performance.now()
  const timer = setInterval(() => {
    const used = cpuNow()
    const now = performance.now()
    maxCpuMs = Math.max(maxCpuMs, used - cpu)
    maxWallMs = Math.max(maxWallMs, now - wall)
    cpu = used
    wall = now
  }, 1)
  return {
    stop() {
      clearInterval(timer)
      return { maxCpuMs, maxWallMs, summary: `longest stretch between loop turns ${maxCpuMs.toFixed(1)} ms CPU, ${maxWallMs.toFixed(1)} ms wall` }
    },
  }
}

/**
 * Runs fn with the health monitor and the loop watch beside it; prints both, answers fn's value with both. The watch
 * is read after its next tick: a stretch that ends as fn's promise settles is only measured by the tick that follows.
 */
export async function besideHealth<T>(base: string, label: string, fn: () => Promise<T>) {
  const monitor = monitorHealth(base)
  const loop = watchLoop()
  const value = await fn()
  await new Promise((resolve) => setTimeout(resolve, 5))
  const stretch = loop.stop()
  const health = await monitor.stop()
  console.log(`${label}: ${health.summary}; ${stretch.summary}`)
  return { value, health, stretch }
}

/**
 * Sends a request and keeps the answer's bytes as they arrive; `json()` parses them later. The client shares the loop's
 * thread in these tests: parsing megabytes inside a watch would be the client's stretch, not the host's.
 */
export async function keepingBytes(url: string, init: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {}) {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body)
  const res = await request(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers }, body,
  })
  const chunks: Buffer[] = []
  for await (const chunk of res.body) chunks.push(chunk as Buffer)
  return { status: res.statusCode, headers: res.headers, bytes: () => Buffer.concat(chunks), json: () => JSON.parse(Buffer.concat(chunks).toString()) }
}

/**
 * The go-live report runs once START_REPORT_DELAY_MS after listening and scans the sources on the loop (0.45 s): a
 * start-up cost, not a hardening test's subject, so it is over before anything is measured.
 */
export async function pastStartReport(app: FastifyInstance): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, START_REPORT_DELAY_MS + 500))
  await app.adminCollectors.readiness.report({ smoke: false })
}

/**
 * Waits (at most 5 s) until the host's memory reservations are all given back: each comes back at its response's
 * close, which on a busy machine may follow the response's last byte by a few turns. Answers what is still held.
 */
export async function reservationsReturned(app: FastifyInstance): Promise<number> {
  for (let waited = 0; app.memory.held() > 0 && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20))
  return app.memory.held()
}
