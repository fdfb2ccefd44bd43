// The real server as a child process: spawn it (from src through tsx, or the compiled dist), find a free port, wait for health.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { request } from 'undici'
import { REPO_ROOT } from '../../src/version.js'

/** The compiled entry point; `npm test` builds it in `pretest`. */
export const DIST_SERVER = join(REPO_ROOT, 'dist', 'src', 'server.js')

export interface ServerProcess {
  readonly child: ChildProcess
  /** Resolves once the process has exited, with its code (null when a signal ended it) and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** What the process wrote to stderr so far (the last 64 KiB). */
  stderr(): string
  /** What the process wrote to stdout (its pino log) so far (the last 64 KiB). */
  stdout(): string
  /** True until the process has exited. */
  alive(): boolean
}

export interface StartOptions {
  /** Run dist/src/server.js (fast start; needs `npm run build`) instead of src/server.ts through tsx. */
  compiled?: boolean
}

/** Throws a clear error when the compiled server is missing. */
export function requireCompiledServer(): string {
  if (!existsSync(DIST_SERVER)) {
    throw new Error(`${DIST_SERVER} is missing: run "npm run build" first ("npm test" builds it in pretest)`)
  }
  return DIST_SERVER
}

/** Spawns the server with LOG_LEVEL=warn and MILL_THREADS=1 unless env says otherwise. */
export function startServer(env: Record<string, string>, { compiled = false }: StartOptions = {}): ServerProcess {
  const args = compiled ? [requireCompiledServer()] : ['--import', 'tsx', 'src/server.ts']
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', MILL_THREADS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const tail = (stream: NodeJS.ReadableStream) => {
    let text = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      text += chunk
      if (text.length > 65536) text = text.slice(-65536)
    })
    return () => text
  }
  const stdout = tail(child.stdout!)
  const stderr = tail(child.stderr!)
  let running = true
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running = false
      resolve({ code, signal })
    }),
  )
  // A spawn failure (e.g. ENOENT) is reported through 'exit' too; keep it from being an unhandled 'error'.
  child.once('error', () => undefined)
  return { child, exited, stderr, stdout, alive: () => running }
}

/** Sends a signal (SIGKILL by default) unless the process has already exited, and waits for the exit. */
export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGKILL') {
  if (server.alive()) server.child.kill(signal)
  return server.exited
}

/** A loopback port that was free a moment ago (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))))
    })
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Polls url until it answers 200. With server given, gives up as soon as that process exits (and shows its stderr),
 * so a server that failed to start, or a port answered by some other process, is not mistaken for health. headers go with
 * each poll (a client address of its own, so the polls spend no test's rate-limit quota).
 */
export async function waitForHealth(
  url: string,
  { server, timeoutMs = 30_000, headers }: { server?: ServerProcess; timeoutMs?: number; headers?: Record<string, string> } = {},
) {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    if (server && !server.alive()) {
      const { code, signal } = await server.exited
      throw new Error(`the server exited (code ${code}, signal ${signal}) before ${url} answered; output:\n${server.stderr()}${server.stdout()}`)
    }
    try {
      const res = await request(url, { headers, headersTimeout: 5000, bodyTimeout: 5000 })
      await res.body.dump()
      if (res.statusCode === 200) {
        if (server && !server.alive()) continue // answered by someone else just as ours died: report the exit
        return
      }
      last = `HTTP ${res.statusCode}`
    } catch (err) {
      last = (err as Error).message
    }
    await sleep(25)
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})${server ? `; output:\n${server.stderr()}${server.stdout()}` : ''}`)
}

/**
 * CPU time (user + system) so far, in ms, from a /proc stat file: a process's (`/proc/<pid>/stat`, every thread) or one
 * thread's (`/proc/<pid>/task/<tid>/stat`). Linux; USER_HZ is 100, so a tick is 10 ms.
 */
export function cpuMsOfStat(path: string): number {
  // The command name may hold spaces and parentheses: the fields start after its last ')'; utime, stime are 12th, 13th.
  const stat = readFileSync(path, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** CPU time (user + system, every thread) a process has used so far, in ms. */
export const cpuMsOf = (pid: number): number => cpuMsOfStat(`/proc/${pid}/stat`)

/** Pids whose command line contains text (Linux /proc; e.g. PostgreSQL's backends name their database there). */
export function pidsMatching(text: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry))
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids
}
