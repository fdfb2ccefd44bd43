// A health-latency monitor for real-socket hardening tests: a loop of GET /api/v1/health beside a hostile request.
// Tests assert that every health check is answered and print the latencies; they do not bound them, because on the
// shared 2-core machine (load 15+, the client in the same process) a bound loose enough to hold is not a check.
// The 50 ms target is held by `npm run bench:load` (hostile phase).
import { existsSync } from 'node:fs'
import { request } from 'undici'
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
export async function postRaw(base: string, path: string, body: string, type = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await request(`${base}${path}`, { method: 'POST', headers: { 'content-type': type }, body })
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
  /**
   * Stops watching; the most CPU time of the loop's thread (and wall time) between two turns of the loop, in ms, and
   * the most CPU time of the whole process between two turns (see watchLoop).
   */
  stop(): { maxCpuMs: number; maxWallMs: number; maxProcessCpuMs: number; summary: string }
}

/** Linux: the main thread's own CPU time (its task id is the process id), in ms at the kernel's 10 ms resolution. */
const MAIN_THREAD_STAT = `/proc/self/task/${process.pid}/stat`
const mainThreadCpuMs = () => cpuMsOfStat(MAIN_THREAD_STAT)

/**
 * Watches this process's event loop (the test's host runs in it) with a 1 ms timer: the longest stretch between two
 * turns in CPU time of the loop's own thread, which neither a busy shared machine nor the mill's threads stretch the
 * way they stretch wall time, so a bound on it checks the code. Off Linux it is the wall time. The kernel counts that
 * in 10 ms ticks (a 12 ms stretch reads 10 or 20), so the process's CPU time (all its threads, to the microsecond) is
 * kept too: an upper bound of the loop's own that is fine enough to tell a 10 ms stretch from a 25 ms one, as long as
 * the mill and body threads are idle while the loop runs (they are, in a test sending one request at a time).
 */
export function watchLoop(): LoopWatch {
  const cpuNow = existsSync(MAIN_THREAD_STAT) ? mainThreadCpuMs : () => performance.now()
  let maxCpuMs = 0
  let maxWallMs = 0
  let maxProcessCpuMs = 0
  const processCpuMs = () => {
    const { user, system } = process.cpuUsage()
    return (user + system) / 1000
  }
  let cpu = cpuNow()
  let wall = performance.now()
  let processCpu = processCpuMs()
  const timer = setInterval(() => {
    const used = cpuNow()
    const now = performance.now()
    const processUsed = processCpuMs()
    maxCpuMs = Math.max(maxCpuMs, used - cpu)
    maxWallMs = Math.max(maxWallMs, now - wall)
    maxProcessCpuMs = Math.max(maxProcessCpuMs, processUsed - processCpu)
    cpu = used
    wall = now
    processCpu = processUsed
  }, 1)
  return {
    stop() {
      clearInterval(timer)
      const summary = `longest stretch between loop turns ${maxCpuMs.toFixed(0)} ms CPU, ${maxWallMs.toFixed(1)} ms wall, ` +
        `${maxProcessCpuMs.toFixed(1)} ms CPU of the whole process`
      return { maxCpuMs, maxWallMs, maxProcessCpuMs, summary }
    },
  }
}
