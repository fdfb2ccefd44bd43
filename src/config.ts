// The one place that reads the environment: zod-validated, aliases resolved, frozen (SPEC §1.6).
import { availableParallelism } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { z } from 'zod'
import { databaseLocation, publicEndpointUrl, redactEndpointUrl } from './http/redact.js'
import { DEFAULT_JSON_MAX_DEPTH, DEFAULT_JSON_MAX_VALUES } from './body-parse/json-text.js'

/** Alternative names accepted for a variable; reported in the readiness report's environment summary. */
export const CONFIG_ALIASES: ReadonlyArray<{ alias: string; canonical: string; meaning: string }> = [
  { alias: 'NCM_HOST', canonical: 'HOST', meaning: 'listen address' },
  { alias: 'NCM_PORT', canonical: 'PORT', meaning: 'listen port' },
  { alias: 'NCM_DATA_DIR', canonical: 'DATA_DIR', meaning: 'directory of the SQLite file' },
  { alias: 'DATABASE_PATH', canonical: 'DATA_DIR', meaning: 'full path of the SQLite file (overrides DATA_DIR/ncm-hub.sqlite)' },
  { alias: 'NCM_ADMIN_TOKEN', canonical: 'ADMIN_TOKEN', meaning: 'admin bearer credential' },
]

const MiB = 1024 * 1024
const defaultMillThreads = Math.max(1, availableParallelism() - 1)

/** What a host needs resident with its first mill worker, measured by bench:memory (docs/benchmarks.md). */
export const DEFAULT_MEMORY_BUDGET_MIB = 320

const intFrom = (min: number, max: number) => z.coerce.number().int().min(min).max(max)

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: intFrom(0, 65535).default(8000),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_PATH: z.string().min(1).optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\/./, 'must be a postgres:// or postgresql:// URL').optional(),
  DATABASE_POOL_MAX: intFrom(1, 1000).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: intFrom(100, 600_000).default(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  RATE_LIMIT_PER_MIN: intFrom(0, 10_000_000).default(1200),
  BODY_LIMIT_BYTES: intFrom(1024, 1024 * MiB).default(1 * MiB),
  LARGE_BODY_LIMIT_BYTES: intFrom(1024, 1024 * MiB).default(16 * MiB),
  RPC_ENDPOINTS: z.string().default(''),
  RPC_PUBLIC_ENDPOINTS: z.string().default(''),
  RUN_RETENTION_MAX_RUNS: intFrom(0, 100_000_000).default(10_000),
  RUN_RETENTION_MAX_AGE_DAYS: intFrom(0, 36_500).default(90),
  RUN_RESULTS_LEASE_MS: intFrom(1000, 3_600_000).default(60_000),
  RPC_PROBE_INTERVAL_MS: intFrom(100, 3_600_000).default(5000),
  MILL_THREADS: intFrom(1, 64).default(defaultMillThreads),
  MILL_QUEUE: intFrom(0, 10_000).default(32),
  MILL_NICE: intFrom(0, 19).default(10),
  MEMORY_BUDGET_MIB: intFrom(16, 1_048_576).default(DEFAULT_MEMORY_BUDGET_MIB),
  MAX_EVENT_LOOP_DELAY_MS: intFrom(10, 60_000).default(200),
  SHUTDOWN_GRACE_MS: intFrom(100, 120_000).default(10_000),
  NODE_ENV: z.string().default('development'),
  TRUST_PROXY: z.string().regex(/^(true|false|[0-9])$/, 'must be true, false, or the number of proxies in front (0–9)').default('false'),
  CORS_ORIGINS: z.string().default(''),
  JOB_RETENTION_H: z.coerce.number().min(0.001).max(24 * 365).default(24),
  JOB_MAX_MS: intFrom(1000, 7 * 24 * 3_600_000).default(30 * 60_000),
  JSON_MAX_DEPTH: intFrom(16, 1_000_000).default(DEFAULT_JSON_MAX_DEPTH),
  JSON_MAX_VALUES: intFrom(1000, 100_000_000).default(DEFAULT_JSON_MAX_VALUES),
  DIFF_PATCH_MAX_WEIGHT: intFrom(1024, 1024 * MiB).default(2 * MiB),
  RUN_BATCH_MAX_WEIGHT: intFrom(1024, 1024 * MiB).default(16 * MiB),
  VERIFY_CACHE_MS: intFrom(0, 86_400_000).default(30_000),
  // The memory admission's total; unset, it is (LARGE_BODY_CONCURRENCY + LARGE_ANSWER_CONCURRENCY) × LARGE_BODY_LIMIT_BYTES.
  MEMORY_ADMISSION_BYTES: intFrom(1024, 1024 * 1024 * MiB).optional(),
  MEMORY_PER_CLIENT_BYTES: intFrom(1024, 1024 * 1024 * MiB).optional(),
  LARGE_BODY_CONCURRENCY: intFrom(1, 10_000).default(4),
  LARGE_ANSWER_CONCURRENCY: intFrom(1, 10_000).default(8),
  SLOW_CLIENT_MS: intFrom(100, 3_600_000).default(30_000),
  BARS_CACHE_BYTES: intFrom(0, 64 * 1024 * MiB).default(256 * MiB),
  CSV_MAX_ROWS: intFrom(1, 100_000_000).default(250_000),
  SSE_STREAMS_PER_CLIENT: intFrom(1, 10_000).default(8),
  HEAVY_ACCESS: z.enum(['scoped', 'open']).default('scoped'),
  LOOP_TRIPWIRE: z.enum(['off', 'throw']).default('off'),
  JOBS_PER_CLIENT: intFrom(1, 100_000).optional(),
  JOB_RETENTION_MAX_JOBS: intFrom(0, 100_000_000).default(10_000),
  MCP_SESSIONS_PER_CLIENT: intFrom(1, 10_000).default(16),
  PUBLIC_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  REDIS_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, 'must be 1–64 letters, digits or _ : . -').default('ncm:'),
})

/** Every variable the config reads (aliases apart): .env.example lists each one. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape)

/** Variables whose value is a secret: a message about a bad value says how long it is, never what it is. */
const SECRET_VARIABLES = new Set(['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL'])

export interface Config {
  /** The address clients reach this host at (PUBLIC_URL, no trailing slash), for the curl lines of /help; null = the request's own. */
  readonly publicUrl: string | null
  readonly host: string
  readonly port: number
  /** Absolute path of DATA_DIR. */
  readonly dataDir: string
  /** Absolute path of the SQLite file, or ':memory:'; unused when databaseUrl is set. */
  readonly databasePath: string
  /** PostgreSQL connection string (DATABASE_URL): set, the store is PostgreSQL instead of the SQLite file. Holds a password. */
  readonly databaseUrl: string | null
  /** Most connections the PostgreSQL pool opens (DATABASE_POOL_MAX). */
  readonly databasePoolMax: number
  /** How long opening a PostgreSQL connection may take before the statement waiting for it fails. */
  readonly databaseConnectTimeoutMs: number
  readonly logLevel: z.infer<typeof envSchema>['LOG_LEVEL']
  readonly adminToken: string | null
  /** Requests per minute per client IP; 0 turns the limiter off. */
  readonly rateLimitPerMin: number
  readonly bodyLimitBytes: number
  readonly largeBodyLimitBytes: number
  /** Upstream RPC URLs that may hold credentials: shown as scheme://host:port only. */
  readonly rpcEndpoints: readonly string[]
  /** Upstream RPC URLs the operator declares free of secrets: probed like rpcEndpoints and shown in full. */
  readonly rpcPublicEndpoints: readonly string[]
  /** How many stored trading runs are kept, and for how long; 0 = no limit of that kind. Oldest go first. */
  readonly runRetention: { readonly maxRuns: number; readonly maxAgeDays: number }
  /**
   * How long a run's results writer holds its claim without renewing it (it renews before every batch): past it the
   * writing counts as interrupted, its partial rows are swept and a repeat of the run writes them again.
   */
  readonly runResultsLeaseMs: number
  readonly rpcProbeIntervalMs: number
  readonly millThreads: number
  readonly millQueue: number
  /** Scheduling niceness of mill workers: heavy work yields the CPU to the event loop serving light requests. */
  readonly millNice: number
  /** Resident memory the host aims to stay within; the command post reports what is left of it by component. */
  readonly memoryBudgetBytes: number
  readonly maxEventLoopDelayMs: number
  readonly shutdownGraceMs: number
  readonly nodeEnv: string
  /**
   * How many reverse proxies in front to trust (TRUST_PROXY; true is one, the nginx in front): a client's address is the
   * one the outermost of them saw, the entry that many from the right of X-Forwarded-For. Entries further left are the
   * client's own words: trusting them let any client choose its client key (rate limit, shares, anonymous owners).
   */
  readonly trustProxy: number
  /** Exact origins (scheme://host[:port]) granted cross-origin access; empty = none. */
  readonly corsOrigins: readonly string[]
  /** Hours a finished job's answer is kept before it is purged. */
  readonly jobRetentionH: number
  /** Longest a job may run (ms) before it is stopped and fails with `timeout`. */
  readonly jobMaxMs: number
  /** Deepest nesting of arrays/objects a JSON body may have; counted before the body is parsed. */
  readonly jsonMaxDepth: number
  /** Most values (array/object members, counted by openings and commas) a JSON body may hold; counted before parsing. */
  readonly jsonMaxValues: number
  /** The most a /diff patch may produce: the patched document's weight (nodes × 8 + characters), counted as it is applied. */
  readonly diffPatchMaxWeight: number
  /** The most the answers of one /run batch may weigh together (nodes × 8 + characters), counted as jobs answer. */
  readonly runBatchMaxWeight: number
  /** GET /api/v11/system/verify answers a run younger than this again instead of re-reading the database. */
  readonly verifyCacheMs: number
  /**
   * Bytes large bodies (their length) and answers that grow with their input (LARGE_BODY_LIMIT_BYTES each) may hold
   * reserved at once, all clients together; past it a request is refused `occupied` before its body is read.
   */
  readonly memoryAdmissionBytes: number
  /** The same, one client (Principal.owner): default a third of the total, at least one large reservation. */
  readonly memoryPerClientBytes: number
  /** A response whose client takes nothing for this long is ended; a body not received within it is refused 408. */
  readonly slowClientMs: number
  /** Bytes of dataset bars the trading service keeps in memory (least recently used out). */
  readonly barsCacheBytes: number
  /** Rows a CSV import over HTTP may have; counted before parsing (the ncm CLI's import is not bounded by it). */
  readonly csvMaxRows: number
  /** Job event streams (SSE) one client (IP) may hold open at once; more are refused `over_limit` before they open. */
  readonly sseStreamsPerClient: number
  /**
   * Who may start work in the mill while ADMIN_TOKEN is set: `scoped` (a credential with run:heavy, on every door) or
   * `open` (anyone; rate limit and per-client shares still apply). Without ADMIN_TOKEN the host is open either way.
   */
  readonly heavyAccess: 'scoped' | 'open'
  /**
   * `throw`: an answer of more than LOOP_VALUE_MAX_BYTES of JSON written on the event loop throws instead of being sent
   * (the tests run with it, so a route that writes a large answer on the loop fails CI; such answers are written in the
   * mill). `off` in production.
   */
  readonly loopTripwire: 'off' | 'throw'
  /**
   * Unfinished jobs (queued or running) one principal may have at once: its share of the queue beside the global
   * bound (MILL_QUEUE). Default: a quarter of MILL_QUEUE, at least 2.
   */
  readonly jobsPerClient: number
  /** Finished jobs whose input and answer are kept (the newest), beside JOB_RETENTION_H; 0 = no count limit. */
  readonly jobRetentionMaxJobs: number
  /** MCP sessions one principal may hold; past it its own least recently used one is closed (MAX_SESSIONS stays the global cap). */
  readonly mcpSessionsPerClient: number
  /**
   * redis:// or rediss:// URL shared by every replica: set, the rate limit counts in Redis and jobs are dispatched
   * through BullMQ; null = each process alone (in-memory limit, in-process queue).
   */
  readonly redisUrl: string | null
  /** Prefix of every Redis key this host writes (limiter counts, BullMQ queue, job events). */
  readonly redisPrefix: string
  /** Aliases that were used to set a variable in this environment. */
  readonly aliasesUsed: ReadonlyArray<{ alias: string; canonical: string }>
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Reads and validates the environment; throws a ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const merged: Record<string, string | undefined> = { ...env }
  const aliasesUsed: Array<{ alias: string; canonical: string }> = []
  for (const { alias, canonical } of CONFIG_ALIASES) {
    if (alias === 'DATABASE_PATH') continue // a variable of its own, not a rename
    if (env[alias] !== undefined && env[alias] !== '') {
      if (env[canonical] === undefined || env[canonical] === '') merged[canonical] = env[alias]
      aliasesUsed.push({ alias, canonical })
    }
  }
  if (env.DATABASE_PATH) aliasesUsed.push({ alias: 'DATABASE_PATH', canonical: 'DATA_DIR' })
  // An empty variable means "unset", as in most shells' `VAR= cmd`.
  for (const key of Object.keys(merged)) if (merged[key] === '') delete merged[key]

  const parsed = envSchema.safeParse(merged)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '?')
      const value = merged[name]
      const shown = SECRET_VARIABLES.has(name) && value !== undefined ? `<${value.length} characters, not shown>` : JSON.stringify(value ?? null)
      return `${name}=${shown}: ${issue.message}`
    })
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`)
  }
  const e = parsed.data
  const dataDir = resolve(cwd, e.DATA_DIR)
  const databasePath =
    e.DATABASE_PATH === ':memory:'
      ? ':memory:'
      : e.DATABASE_PATH
        ? (isAbsolute(e.DATABASE_PATH) ? e.DATABASE_PATH : resolve(cwd, e.DATABASE_PATH))
        : join(dataDir, 'ncm-hub.sqlite')
  const rpcEndpoints = httpUrlList('RPC_ENDPOINTS', e.RPC_ENDPOINTS)
  const rpcPublicEndpoints = httpUrlList('RPC_PUBLIC_ENDPOINTS', e.RPC_PUBLIC_ENDPOINTS)
  const corsOrigins = e.CORS_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean)
  for (const origin of corsOrigins) {
    // Exact origins only: no wildcard, no path, no trailing slash (browsers send the origin in this serialised form).
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      throw new ConfigError(`invalid configuration:\n  CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin as a browser sends it (scheme://host[:port] in lower case, no default port, no path)`)
    }
  }
  const memoryAdmissionBytes = e.MEMORY_ADMISSION_BYTES ?? (e.LARGE_BODY_CONCURRENCY + e.LARGE_ANSWER_CONCURRENCY) * e.LARGE_BODY_LIMIT_BYTES
  return Object.freeze({
    publicUrl: publicUrlOf(e.PUBLIC_URL),
    host: e.HOST,
    port: e.PORT,
    dataDir,
    databasePath,
    databaseUrl: e.DATABASE_URL ?? null,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    adminToken: e.ADMIN_TOKEN ?? null,
    rateLimitPerMin: e.RATE_LIMIT_PER_MIN,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    largeBodyLimitBytes: e.LARGE_BODY_LIMIT_BYTES,
    rpcEndpoints: Object.freeze(rpcEndpoints),
    rpcPublicEndpoints: Object.freeze(rpcPublicEndpoints),
    runRetention: Object.freeze({ maxRuns: e.RUN_RETENTION_MAX_RUNS, maxAgeDays: e.RUN_RETENTION_MAX_AGE_DAYS }),
    runResultsLeaseMs: e.RUN_RESULTS_LEASE_MS,
    rpcProbeIntervalMs: e.RPC_PROBE_INTERVAL_MS,
    millThreads: e.MILL_THREADS,
    millQueue: e.MILL_QUEUE,
    millNice: e.MILL_NICE,
    memoryBudgetBytes: e.MEMORY_BUDGET_MIB * MiB,
    maxEventLoopDelayMs: e.MAX_EVENT_LOOP_DELAY_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    nodeEnv: e.NODE_ENV,
    trustProxy: e.TRUST_PROXY === 'true' ? 1 : e.TRUST_PROXY === 'false' ? 0 : Number(e.TRUST_PROXY),
    corsOrigins: Object.freeze(corsOrigins),
    jobRetentionH: e.JOB_RETENTION_H,
    jobMaxMs: e.JOB_MAX_MS,
    jsonMaxDepth: e.JSON_MAX_DEPTH,
    jsonMaxValues: e.JSON_MAX_VALUES,
    diffPatchMaxWeight: e.DIFF_PATCH_MAX_WEIGHT,
    runBatchMaxWeight: e.RUN_BATCH_MAX_WEIGHT,
    verifyCacheMs: e.VERIFY_CACHE_MS,
    memoryAdmissionBytes,
    memoryPerClientBytes: Math.min(memoryAdmissionBytes, e.MEMORY_PER_CLIENT_BYTES ?? Math.max(e.LARGE_BODY_LIMIT_BYTES, Math.floor(memoryAdmissionBytes / 3))),
    slowClientMs: e.SLOW_CLIENT_MS,
    barsCacheBytes: e.BARS_CACHE_BYTES,
    csvMaxRows: e.CSV_MAX_ROWS,
    sseStreamsPerClient: e.SSE_STREAMS_PER_CLIENT,
    heavyAccess: e.HEAVY_ACCESS,
    loopTripwire: e.LOOP_TRIPWIRE,
    jobsPerClient: e.JOBS_PER_CLIENT ?? Math.max(2, Math.ceil(e.MILL_QUEUE / 4)),
    mcpSessionsPerClient: e.MCP_SESSIONS_PER_CLIENT,
    jobRetentionMaxJobs: e.JOB_RETENTION_MAX_JOBS,
    redisUrl: redisUrlOf(e.REDIS_URL),
    redisPrefix: e.REDIS_PREFIX,
    aliasesUsed: Object.freeze(aliasesUsed),
  })
}

/** PUBLIC_URL: an http(s) URL without query or fragment (a path prefix is kept, e.g. behind a proxy), no trailing slash. */
function publicUrlOf(value: string | undefined): string | null {
  if (value === undefined) return null
  const url = URL.canParse(value) ? new URL(value) : null
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`invalid configuration:\n  PUBLIC_URL=${JSON.stringify(value)}: must be an http(s) URL without credentials, query or fragment (e.g. https://ncm.example)`)
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

/** REDIS_URL: redis:// or rediss:// only; the message never repeats the value (it may carry a password). */
function redisUrlOf(value: string | undefined): string | null {
  if (value === undefined) return null
  if (!URL.canParse(value) || !/^rediss?:$/.test(new URL(value).protocol)) {
    throw new ConfigError('invalid configuration:\n  REDIS_URL: not a redis:// or rediss:// URL (value not shown: it may hold a password)')
  }
  return value
}

/** A Redis URL as /env, logs and health show it: scheme, host, port and database number; never the user or password. */
export function redisDisplayUrl(url: string): string {
  const { protocol, host, pathname } = new URL(url)
  return `${protocol}//${host}${pathname.length > 1 ? pathname : ''}`
}

/** A comma-separated list of http(s) URLs; a ConfigError names the variable and the first URL that is not one. */
function httpUrlList(name: string, value: string): string[] {
  const urls = value.split(',').map((s) => s.trim()).filter(Boolean)
  for (const url of urls) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      // The entry itself may hold a key: the message names its position, not its text.
      throw new ConfigError(`invalid configuration:\n  ${name}: entry ${urls.indexOf(url) + 1} is not an http(s) URL`)
    }
  }
  return urls
}

/** The effective configuration with secrets redacted, as /api/v1/env shows it. */
export function redactedConfig(config: Config): Record<string, unknown> {
  return {
    HOST: config.host,
    PORT: config.port,
    DATA_DIR: config.dataDir === process.cwd() ? '.' : relativeToCwd(config.dataDir),
    DATABASE: config.databasePath === ':memory:' ? ':memory:' : relativeToCwd(config.databasePath),
    DATABASE_URL: config.databaseUrl === null ? 'unset' : databaseLocation(config.databaseUrl),
    DATABASE_POOL_MAX: config.databasePoolMax,
    DATABASE_CONNECT_TIMEOUT_MS: config.databaseConnectTimeoutMs,
    LOG_LEVEL: config.logLevel,
    ADMIN_TOKEN: config.adminToken ? 'set' : 'unset',
    RATE_LIMIT_PER_MIN: config.rateLimitPerMin,
    BODY_LIMIT_BYTES: config.bodyLimitBytes,
    LARGE_BODY_LIMIT_BYTES: config.largeBodyLimitBytes,
    RPC_ENDPOINTS: config.rpcEndpoints.map((url) => redactEndpointUrl(url)),
    RPC_PUBLIC_ENDPOINTS: config.rpcPublicEndpoints.map((url) => publicEndpointUrl(url)),
    RUN_RETENTION_MAX_RUNS: config.runRetention.maxRuns,
    RUN_RETENTION_MAX_AGE_DAYS: config.runRetention.maxAgeDays,
    RUN_RESULTS_LEASE_MS: config.runResultsLeaseMs,
    RPC_PROBE_INTERVAL_MS: config.rpcProbeIntervalMs,
    MILL_THREADS: config.millThreads,
    MILL_QUEUE: config.millQueue,
    MILL_NICE: config.millNice,
    MEMORY_BUDGET_MIB: config.memoryBudgetBytes / MiB,
    MAX_EVENT_LOOP_DELAY_MS: config.maxEventLoopDelayMs,
    SHUTDOWN_GRACE_MS: config.shutdownGraceMs,
    NODE_ENV: config.nodeEnv,
    TRUST_PROXY: config.trustProxy,
    CORS_ORIGINS: config.corsOrigins,
    JOB_RETENTION_H: config.jobRetentionH,
    JOB_MAX_MS: config.jobMaxMs,
    JSON_MAX_DEPTH: config.jsonMaxDepth,
    JSON_MAX_VALUES: config.jsonMaxValues,
    DIFF_PATCH_MAX_WEIGHT: config.diffPatchMaxWeight,
    RUN_BATCH_MAX_WEIGHT: config.runBatchMaxWeight,
    VERIFY_CACHE_MS: config.verifyCacheMs,
    MEMORY_ADMISSION_BYTES: config.memoryAdmissionBytes,
    MEMORY_PER_CLIENT_BYTES: config.memoryPerClientBytes,
    SLOW_CLIENT_MS: config.slowClientMs,
    BARS_CACHE_BYTES: config.barsCacheBytes,
    CSV_MAX_ROWS: config.csvMaxRows,
    SSE_STREAMS_PER_CLIENT: config.sseStreamsPerClient,
    HEAVY_ACCESS: config.heavyAccess,
    LOOP_TRIPWIRE: config.loopTripwire,
    JOBS_PER_CLIENT: config.jobsPerClient,
    MCP_SESSIONS_PER_CLIENT: config.mcpSessionsPerClient,
    JOB_RETENTION_MAX_JOBS: config.jobRetentionMaxJobs,
    REDIS_URL: config.redisUrl === null ? 'unset' : redisDisplayUrl(config.redisUrl),
    REDIS_PREFIX: config.redisPrefix,
  }
}

function relativeToCwd(path: string): string {
  const cwd = process.cwd()
  return path.startsWith(cwd + '/') ? '.' + path.slice(cwd.length) : '<outside the working directory>'
}

