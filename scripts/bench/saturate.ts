// Shared by bench:mill and bench:load: keep the mill saturated with long SAT jobs, and probe GET /api/v1/health
// one request at a time meanwhile, as a monitoring system would.
import { Worker } from 'node:worker_threads'
import { request } from 'undici'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'

/** A pigeonhole instance (n+1 pigeons, n holes): UNSAT and exponentially hard for resolution, so it keeps a worker busy. */
export const pigeonhole = pigeonholeDimacs

interface Outcomes {
  [key: string]: number
}

export interface Signal {
  stopping: boolean
}

export interface FloodOptions {
  /** Jobs kept in flight: more than the mill's threads + queue. */
  flooders: number
  /** Each job's budget. */
  timeoutMs: number
  /** Pause after a refusal before the next job. */
  pauseAfterRefusalMs: number
  /**
   * How long a job may take to be answered before it counts as hung: its wait in the queue (which the budget does not
   * count) plus its run. Defaults to 30 s.
   */
  answerWithinMs?: number
}

/** Keeps more long SAT jobs in flight than the mill has threads and queue, so it stays saturated throughout. */
export function saturateMill(base: string, signal: Signal, options: FloodOptions) {
  const dimacs = pigeonhole(11)
  const outcomes: Outcomes = {}
  let hung = 0
  const flooders = Array.from({ length: options.flooders }, async () => {
    while (!signal.stopping) {
      try {
        const res = await request(`${base}/api/v1/sat`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dimacs, timeout_ms: options.timeoutMs }),
          headersTimeout: options.answerWithinMs ?? 30_000, bodyTimeout: options.answerWithinMs ?? 30_000,
        })
        const body = (await res.body.json()) as { ok: boolean; data?: { status: string }; refuse?: { code: string } }
        const key = body.ok ? `${res.statusCode} ${body.data!.status}` : `${res.statusCode} ${body.refuse!.code}`
        outcomes[key] = (outcomes[key] ?? 0) + 1
        if (!body.ok) await new Promise((r) => setTimeout(r, options.pauseAfterRefusalMs))
      } catch {
        hung++
      }
    }
  })
  return { done: Promise.all(flooders), outcomes, hung: () => hung }
}

export type Probe = ReturnType<typeof probeHealth>

/** The probe's loop, in a thread of its own (CommonJS, run from the repository root, where undici resolves). */
const PROBE_THREAD = `
const { parentPort, workerData } = require('node:worker_threads')
const { request } = require('undici')
let stopping = false
parentPort.on('message', () => { stopping = true })
;(async () => {
  const latencies = []
  let failures = 0
  while (!stopping) {
    const t = performance.now()
    try {
      const res = await request(workerData.url, { headersTimeout: 10000 })
      await res.body.dump()
      if (res.statusCode !== 200) failures++
      latencies.push(performance.now() - t)
    } catch {
      failures++
    }
    await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs))
  }
  parentPort.postMessage({ latencies, failures })
})()
`

/**
 * One request at a time to GET /api/v1/health, `intervalMs` apart, as a monitoring system would. It runs in a thread
 * of its own: on the bench's loop it also waited for the attacker's own work there (reading 30 answers of 244 KB at
 * once, the bench's loop, not the host's), and that wait was counted as the host's.
 */
export function probeHealth(base: string, signal: Signal, intervalMs: number) {
  const latencies: number[] = []
  let failures = 0
  const worker = new Worker(PROBE_THREAD, { eval: true, workerData: { url: `${base}/api/v1/health`, intervalMs } })
  const watch = setInterval(() => { if (signal.stopping) worker.postMessage('stop') }, 5)
  const done = new Promise<void>((resolve, reject) => {
    worker.once('message', (result: { latencies: number[]; failures: number }) => {
      latencies.push(...result.latencies)
      failures = result.failures
      resolve()
    })
    worker.once('error', reject)
  }).finally(() => {
    clearInterval(watch)
    void worker.terminate()
  })
  return { done, latencies, failures: () => failures, intervalMs }
}

/** The p-quantile of an ascending array (nearest rank). */
export const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN

/** Prints a probe's latency quantiles (and the verdict against a target, when given); returns its p99. */
export function report(label: string, probe: Probe, targetMs: number | null): number {
  const sorted = [...probe.latencies].sort((a, b) => a - b)
  const p99 = quantile(sorted, 0.99)
  console.log(`${label}: GET /api/v1/health one at a time every ${probe.intervalMs} ms, ${sorted.length} answers, ${probe.failures()} failures`)
  console.log(`    p50 ${quantile(sorted, 0.5).toFixed(2)} ms  p95 ${quantile(sorted, 0.95).toFixed(2)} ms  p99 ${p99.toFixed(2)} ms  max ${sorted.at(-1)?.toFixed(2)} ms`)
  if (targetMs !== null) console.log(`    p99 target < ${targetMs} ms: ${p99 < targetMs ? 'MET' : 'NOT MET'}`)
  return p99
}

