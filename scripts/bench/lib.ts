// Shared bench helpers: spawn a server script and read its ports, run autocannon, read a process's RSS.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import autocannon from 'autocannon'
import { cpuMsOf } from '../cluster/process.js'

export interface Spawned<T> {
  child: ChildProcess
  info: T
}

/** Starts `tsx <script>` and waits for the JSON line it prints when ready. */
export async function spawnServer<T>(script: string, env: Record<string, string> = {}): Promise<Spawned<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })
  const info = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000)
    lines.once('line', (line) => {
      clearTimeout(timer)
      resolve(JSON.parse(line) as T)
    })
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
  return { child, info }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

export interface LoadResult {
  requestsPerSec: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  total: number
}

export async function load(
  url: string,
  options: { connections?: number; duration?: number; amount?: number; headers?: Record<string, string> } = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: options.connections ?? 20,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 5 }),
  })
  return {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  }
}

/** Resident set size of a process in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : null
  } catch {
    return null
  }
}

/** CPU time (user + system, all threads) a process has used so far, from /proc; null off Linux. */
export function cpuMs(pid: number): number | null {
  try {
    return cpuMsOf(pid)
  } catch {
    return null
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** CPU time the whole machine has spent busy (every core, every process) and idle so far, in ms, from /proc/stat. */
export function machineCpuMs(): { busy: number; idle: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map(Number) as number[]
  // USER_HZ is 100 on Linux: a tick is 10 ms.
  return { busy: (user! + nice! + system! + irq! + softirq! + steal!) * 10, idle: (idle! + iowait!) * 10 }
}
