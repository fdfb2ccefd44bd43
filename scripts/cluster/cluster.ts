// Several compiled app processes behind Debian's nginx running nginx/ncm-hub-scale.conf (its own prefix, loopback
// ports, no root needed), started, killed, restarted and stopped as one; for the multi-replica tests and bench:scale.
// Every process it starts is remembered and SIGKILLed when this process exits, so a failed or interrupted run leaves
// nothing running.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { REPO_ROOT } from '../../src/version.js'
import { freePort, requireCompiledServer, startServer, stopServer, waitForHealth, type ServerProcess } from './process.js'

export const NGINX = '/usr/sbin/nginx'

/** Why nginx cannot be used here, or null. */
export function nginxUnavailable(): string | null {
  return existsSync(NGINX) ? null : `${NGINX} is missing (Debian package nginx-light)`
}

const running = new Set<ChildProcess>()
let exitHookInstalled = false
function remember(child: ChildProcess) {
  running.add(child)
  child.once('exit', () => running.delete(child))
  if (!exitHookInstalled) {
    exitHookInstalled = true
    // 'exit' handlers run synchronously: kill() is enough, nobody waits.
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL')
    })
  }
}

export interface Replica {
  readonly index: number
  readonly port: number
  /** This replica directly, bypassing nginx. */
  readonly url: string
  /** The running process; null while it is down. */
  server: ServerProcess | null
}

/** One request as nginx logged it: every upstream tried, in order, with what each answered. */
export interface LogLine {
  method: string
  uri: string
  status: number
  upstreams: string[]
  upstreamStatuses: string[]
}

export interface ClusterOptions {
  replicas: number
  /** Environment of every replica (DATABASE_URL, REDIS_URL, REDIS_PREFIX, ADMIN_TOKEN, …) over the harness defaults. */
  env: Record<string, string>
}

/** nginx running the scale config over some app ports. */
export interface Balancer {
  /** Through nginx. */
  readonly url: string
  /** Every request nginx logged so far. */
  accessLog(): LogLine[]
  /** The access log once `done(lines)` holds (nginx writes a line just after the answer leaves): throws after 5 s. */
  settledLog(done: (lines: LogLine[]) => boolean): Promise<LogLine[]>
  /** The nginx process (its pid for CPU accounting). */
  readonly process: ChildProcess
  stop(): Promise<void>
}

export interface Cluster extends Omit<Balancer, 'process' | 'stop'> {
  readonly replicas: readonly Replica[]
  readonly balancer: Balancer
  /** SIGKILLs a replica and waits for its exit. */
  kill(index: number): Promise<void>
  /** Starts a replica again on its port and waits until it answers /health. */
  restart(index: number): Promise<void>
  /** Lines the replicas (every process, the killed ones too) logged at level error or above, or wrote on stderr. */
  errors(): string[]
  /** The replica whose port this is ("127.0.0.1:port" as nginx logs it). */
  replicaAt(address: string): Replica | undefined
  /** Stops nginx and every replica (SIGKILL: nothing here needs a clean shutdown) and removes the temp folder. */
  stop(): Promise<void>
}

/** The scale config's template with its upstreams pointed at the replicas' loopback ports and its listener at `port`. */
export function scaleConfigFor(ports: readonly number[], listenPort: number): string {
  const conf = readFileSync(join(REPO_ROOT, 'nginx', 'templates', 'ncm-hub-scale.conf.template'), 'utf8')
  let upstreams = 0
  const rewritten = conf
    .replace(/^(\s*)server \$\{NCM_HUB_UPSTREAM\}( [^;]*)?;$/gm, (_line, indent: string, params = '') => {
      upstreams++
      return ports.map((p) => `${indent}server 127.0.0.1:${p}${params};`).join('\n')
    })
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${listenPort};`)
  if (upstreams === 0 || !rewritten.includes(`listen 127.0.0.1:${listenPort};`)) {
    throw new Error('nginx/templates/ncm-hub-scale.conf.template no longer has `server ${NCM_HUB_UPSTREAM} …;` upstream lines and `listen 80;`: update scripts/cluster/cluster.ts')
  }
  return rewritten
}

function mainConfig(dir: string, root: boolean): string {
  return [
    // One process (no master/worker split), in the foreground: a child the harness can kill outright.
    'daemon off;',
    'master_process off;',
    // As root, nginx would otherwise run its worker as nobody, who cannot write this private prefix.
    ...(root ? ['user root;'] : []),
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 1024; }',
    'http {',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `    ${t}_temp_path ${dir}/tmp/${t};`),
    "    log_format upstreams '$request_method $uri $status [$upstream_addr] [$upstream_status]';",
    `    access_log ${dir}/access.log upstreams;`,
    `    include ${dir}/ncm-hub-scale.conf;`,
    '}',
    '',
  ].join('\n')
}

/** Starts nginx with the scale config pointed at `ports`, in its own folder under `dir`; resolves once it answers. */
export async function startBalancer(ports: readonly number[], dir: string): Promise<Balancer> {
  const port = await freePort()
  mkdirSync(join(dir, 'tmp'), { recursive: true })
  writeFileSync(join(dir, 'ncm-hub-scale.conf'), scaleConfigFor(ports, port))
  // The scale config includes ncm-hub-proxy.conf relative to the main config's folder, as in /etc/nginx.
  symlinkSync(join(REPO_ROOT, 'nginx', 'ncm-hub-proxy.conf'), join(dir, 'ncm-hub-proxy.conf'))
  writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir, process.getuid?.() === 0))
  const child = spawn(NGINX, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', `${dir}/error.log`], { stdio: ['ignore', 'ignore', 'pipe'] })
  remember(child)
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  child.once('error', () => undefined)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
  }
  const ready = waitForHealth(`http://127.0.0.1:${port}/nginx-health`, { timeoutMs: 10_000 })
  const outcome = await Promise.race([ready.then(() => 'ready' as const, (err: Error) => err), exited.then(() => 'exited' as const)])
  if (outcome !== 'ready') {
    await stop()
    const log = existsSync(`${dir}/error.log`) ? readFileSync(`${dir}/error.log`, 'utf8') : ''
    throw new Error(`nginx did not start (${outcome === 'exited' ? 'it exited' : outcome.message}): ${stderr}${log}`)
  }

  const accessLog = (): LogLine[] => {
    const path = join(dir, 'access.log')
    if (!existsSync(path)) return []
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => {
      const m = /^(\S+) (\S+) (\d+) \[([^\]]*)\] \[([^\]]*)\]$/.exec(line)
      if (!m) throw new Error(`unexpected nginx access log line: ${line}`)
      const list = (s: string) => (s === '-' ? [] : s.split(/, | : /))
      return { method: m[1]!, uri: m[2]!, status: Number(m[3]), upstreams: list(m[4]!), upstreamStatuses: list(m[5]!) }
    })
  }
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    accessLog,
    settledLog: async (done) => {
      const deadline = Date.now() + 5000
      for (;;) {
        const lines = accessLog()
        if (done(lines)) return lines
        if (Date.now() > deadline) throw new Error(`the nginx access log did not settle:\n${lines.slice(-20).map((l) => JSON.stringify(l)).join('\n')}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    stop,
  }
}

export async function startCluster(o: ClusterOptions): Promise<Cluster> {
  requireCompiledServer()
  const dir = mkdtempSync(join(tmpdir(), 'ncm-scale-'))
  const replicas: Replica[] = []
  let balancer: Balancer | null = null
  let boots = 0
  const started: Array<{ replica: number; server: ServerProcess }> = []

  const boot = async (replica: Replica) => {
    const server = startServer({
      HOST: '127.0.0.1',
      PORT: String(replica.port),
      DATA_DIR: join(dir, `replica-${replica.index}`),
      LOG_LEVEL: 'warn',
      MILL_THREADS: '1',
      // Two proxies: nginx, and in front of it the tests and benches, which name each client they play in X-Forwarded-For.
      TRUST_PROXY: '2',
      // The machine is loaded: event-loop delay must not turn requests away; verify reads the database each time.
      MAX_EVENT_LOOP_DELAY_MS: '60000',
      VERIFY_CACHE_MS: '0',
      ...o.env,
    }, { compiled: true })
    remember(server.child)
    started.push({ replica: replica.index, server })
    replica.server = server
    // Polled as a client of its own (TRUST_PROXY): a shared rate limit must not count the polls against a test's client.
    await waitForHealth(`${replica.url}/health`, { server, timeoutMs: 60_000, headers: { 'x-forwarded-for': `10.255.${replica.index}.${++boots % 250}` } })
  }

  const stop = async () => {
    await balancer?.stop()
    await Promise.all(replicas.map(async (r) => {
      if (r.server) await stopServer(r.server)
      r.server = null
    }))
    rmSync(dir, { recursive: true, force: true })
  }

  try {
    for (let index = 0; index < o.replicas; index++) {
      const port = await freePort()
      replicas.push({ index, port, url: `http://127.0.0.1:${port}`, server: null })
    }
    // The first alone (it migrates and seeds a fresh database), then the others at once. All at once, the waiters
    // for the migrations' lock can pass Fastify's plugin timeout on a loaded machine and exit.
    await boot(replicas[0]!)
    await Promise.all(replicas.slice(1).map(boot))
    const lb = await startBalancer(replicas.map((r) => r.port), join(dir, 'nginx'))
    balancer = lb
    return {
      url: lb.url,
      balancer: lb,
      replicas,
      accessLog: lb.accessLog,
      settledLog: lb.settledLog,
      kill: async (index) => {
        const replica = replicas[index]!
        if (replica.server) await stopServer(replica.server, 'SIGKILL')
        replica.server = null
      },
      restart: async (index) => {
        const replica = replicas[index]!
        if (replica.server?.alive()) throw new Error(`replica ${index} is still running`)
        await boot(replica)
      },
      errors: () => started.flatMap(({ replica, server }) => [
        ...server.stdout().split('\n').filter((line) => /"level":(5|6)\d/.test(line)),
        ...server.stderr().split('\n').filter(Boolean),
      ].map((line) => `replica ${replica}: ${line}`)),
      replicaAt: (address) => replicas.find((r) => address === `127.0.0.1:${r.port}`),
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}

/** A connection pool to a cluster's nginx or one replica, sized for the test's concurrency. */
export function poolTo(url: string, connections = 16): Pool {
  return new Pool(url, { connections, headersTimeout: 60_000, bodyTimeout: 60_000 })
}
