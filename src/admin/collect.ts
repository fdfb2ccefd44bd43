// Gathers the readiness report's inputs live: smoke checks, truth, dependency analyses, migrations, assets, environment.
import { existsSync } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { CONFIG_ALIASES, type Config } from '../config.js'
import { storeStatus } from '../store/status.js'
import { HUB_VERSION, NCM_VERSION, REPO_ROOT } from '../version.js'
import type { DependencySummary } from '../analysers/dependencies/index.js'
import type { PythonProbe } from '../analysers/dependencies/index.js'
import { buildReadinessReport } from './readiness.js'
import type { EnvironmentSummary, JobRetentionSummary, MigrationSummary, Notice, ReadinessReport, RequiredBlocker, RunRetentionSummary, StartupSummary } from './schemas.js'
import { createJobRepository } from '../jobs/repository.js'
import { ADMIN_ROUTES, runSmokeChecks, SMOKE_ALGORITHM } from './smoke.js'
import { TRUTH_ALGORITHM, type TruthRunner } from './truth.js'
import { scaleOutReport } from '../plugins/scale-out.js'

export const MIGRATION_ALGORITHM = 'sql-migrations-forward/1'
export const STARTUP_ALGORITHM = 'startup-plan/1'
export const ENVIRONMENT_ALGORITHM = 'environment-check/1'
/** The analyses read files and spawn python3: kept this long, then redone (the report says when they ran). */
export const DEPENDENCY_CACHE_MS = 30_000

/** The three paths of the seed's `startup_summary.deployment_assets`. */
export const DEPLOYMENT_PATHS: StartupSummary['deployment_assets'] = {
  compose_file: 'docker-compose.yml',
  reverse_proxy_config: 'nginx/ncm-hub.conf',
  service_unit_dir: 'systemd',
}

export const DEPLOYMENT_ASSETS: ReadonlyArray<{ path: string; purpose: string }> = [
  { path: 'Dockerfile', purpose: 'multi-stage, non-root image with a HEALTHCHECK on /health' },
  { path: '.dockerignore', purpose: 'keeps node_modules, data and build output out of the build context' },
  { path: 'docker-compose.yml', purpose: 'app + nginx, named volume for DATA_DIR, healthchecks; profile scale: 3 replicas on PostgreSQL + Redis' },
  { path: 'nginx/ncm-hub.conf', purpose: 'reverse proxy: upstream app:8000' },
  { path: 'nginx/ncm-hub-proxy.conf', purpose: 'what both proxies share: forwarded headers, timeouts, gzip, body size' },
  { path: 'nginx/ncm-hub-scale.conf', purpose: 'balancer over the replicas: least_conn, failing replicas left out, unbuffered job events' },
  { path: 'systemd', purpose: 'service-unit directory' },
  { path: 'systemd/ncm-hub.service', purpose: 'hardened service unit for a host install' },
  { path: 'systemd/ncm-hub@.service', purpose: 'one instance per port (ncm-hub@8001 …) on PostgreSQL + Redis' },
  { path: 'requirements.txt', purpose: 'Python dependencies of the ops scripts' },
  { path: 'scripts/smoke.py', purpose: 'go-live smoke check over HTTP (standard library only)' },
]

export interface CollectorOptions {
  config: Config
  truth: TruthRunner
  now: () => number
  rootDir?: string
  /** Replaces the host's python3 (tests). */
  pythonProbe?: (modules: readonly string[]) => Promise<PythonProbe>
}

export interface ReadinessCollector {
  report(options: { smoke: boolean }): Promise<ReadinessReport>
}

export function createReadinessCollector(app: FastifyInstance, options: CollectorOptions): ReadinessCollector {
  const rootDir = options.rootDir ?? REPO_ROOT
  let cached: { at: number; python: DependencySummary; node: DependencySummary } | null = null
  let pending: Promise<{ python: DependencySummary; node: DependencySummary }> | null = null

  const dependencies = async () => {
    const at = options.now()
    if (cached && at - cached.at < DEPENDENCY_CACHE_MS) return cached
    // Imported here, not at start: only the report uses the analysers (~12 ms of CPU to load, before the first answer).
    pending ??= import('../analysers/dependencies/index.js')
      .then(({ analyseNode, analysePython }) => Promise.all([
        analysePython({ rootDir, ...(options.pythonProbe ? { probe: options.pythonProbe } : {}) }),
        analyseNode({ rootDir }),
      ]))
      .then(([python, node]) => {
        cached = { at, python, node }
        return cached
      })
      .finally(() => {
        pending = null
      })
    return pending
  }

  // Requests that arrive while a report is being built share that build (single flight): the answer is never older
  // than the build in progress, and a burst of dashboards and probes costs one build, not one each.
  const inflight: Record<'smoke' | 'full', Promise<ReadinessReport> | null> = { smoke: null, full: null }

  return {
    report({ smoke }) {
      const key = smoke ? 'smoke' : 'full'
      inflight[key] ??= build(smoke).finally(() => {
        inflight[key] = null
      })
      return inflight[key]
    },
  }

  async function build(smoke: boolean): Promise<ReadinessReport> {
    // A smoke request gets the report without running the smoke checks: that is what stops the recursion.
    const smokeChecks = smoke ? null : await runSmokeChecks(app)
    let truth = null
    let truthError: string | null = null
    try {
      truth = await options.truth.latest()
    } catch (err) {
      truthError = (err as Error).message
    }
    const { python, node } = await dependencies()
    return buildReadinessReport({
      generatedAt: new Date(options.now()).toISOString(),
      versions: { hub: HUB_VERSION, ncm: NCM_VERSION },
      smoke: smokeChecks,
      truth,
      truthError,
      python,
      node,
      migrations: await migrationSummary(app, options.config, rootDir),
      store: await storeStatus(app.store, storeLocation(app, options.config.dataDir, rootDir)),
      runRetention: await runRetentionSummary(app, options.config),
      jobRetention: await jobRetentionSummary(app, options.config),
      scaleOut: await scaleOutReport(app),
      memory: { rss_bytes: process.memoryUsage.rss(), budget_bytes: options.config.memoryBudgetBytes },
      startup: startupSummary(rootDir),
      environment: environmentSummary(options.config, rootDir),
      algorithms: [SMOKE_ALGORITHM, TRUTH_ALGORITHM, python.algorithm, node.algorithm, 'pep503-normalise/1', MIGRATION_ALGORITHM, STARTUP_ALGORITHM, ENVIRONMENT_ALGORITHM],
    })
  }
}

/** A path for the report: relative to the repo root or to DATA_DIR, never absolute. */
export function displayPath(path: string, rootDir: string, dataDir: string): string {
  if (path === ':memory:') return ':memory:'
  const inside = (base: string) => {
    const rel = relative(base, path)
    return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) ? rel.split(sep).join('/') : rel === '' ? '.' : null
  }
  const fromData = inside(dataDir)
  if (fromData !== null) return fromData === '.' ? '$DATA_DIR' : `$DATA_DIR/${fromData}`
  const fromRoot = inside(rootDir)
  if (fromRoot !== null) return fromRoot
  return `<outside the repo and DATA_DIR>/${basename(path)}`
}

function dataDirDisplay(dataDir: string, rootDir: string): string {
  const rel = relative(rootDir, dataDir)
  if (rel === '') return '.'
  return rel.startsWith('..') || rel.startsWith(sep) ? '$DATA_DIR (outside the repo)' : rel.split(sep).join('/')
}


/** The run retention policy in force and what the store holds against it. */
async function runRetentionSummary(app: FastifyInstance, config: Config): Promise<RunRetentionSummary> {
  const { maxRuns, maxAgeDays } = config.runRetention
  const limits = [maxRuns > 0 ? `the newest ${maxRuns} runs` : null, maxAgeDays > 0 ? `runs younger than ${maxAgeDays} days` : null].filter(Boolean)
  const policy = `identical runs are stored once; equity curves only when asked for; ${limits.length ? `kept: ${limits.join(' and ')} (oldest pruned at each new run)` : 'no retention limit'}`
  try {
    // Stored runs and the oldest one's time in one statement (the readiness report is read on every admin page).
    const held = (await app.store.sql.get<{ n: number; oldest: string | null }>(
      'SELECT count(*) AS n, (SELECT created_at FROM runs ORDER BY id LIMIT 1) AS oldest FROM runs',
    ))!
    return { max_runs: maxRuns, max_age_days: maxAgeDays, stored_runs: held.n, oldest_run_at: held.oldest, policy, error: null }
  } catch (err) {
    return { max_runs: maxRuns, max_age_days: maxAgeDays, stored_runs: null, oldest_run_at: null, policy, error: (err as Error).message }
  }
}

/** The job retention policy in force and what the store holds against it. */
async function jobRetentionSummary(app: FastifyInstance, config: Config): Promise<JobRetentionSummary> {
  const maxJobs = config.jobRetentionMaxJobs
  const policy = 'identical submissions of one owner (with nothing measured in the answer) share one job; a finished job\'s input and answer are ' +
    `purged ${config.jobRetentionH} h after it ended${maxJobs > 0 ? ` or once ${maxJobs} newer jobs are kept` : ''}; its record says so for ten times as long`
  const base = { max_jobs: maxJobs, max_age_h: config.jobRetentionH, policy }
  try {
    const kept = await createJobRepository(app.store.sql).kept()
    return { ...base, kept_jobs: kept.jobs, oldest_job_at: kept.oldestAt === null ? null : new Date(kept.oldestAt).toISOString(), error: null }
  } catch (err) {
    return { ...base, kept_jobs: null, oldest_job_at: null, error: (err as Error).message }
  }
}

/** Where the store is, for the report: the SQLite file relative to DATA_DIR or the repo; PostgreSQL's server and database. */
function storeLocation(app: FastifyInstance, dataDir: string, rootDir: string): string {
  return app.store.backend === 'postgres' ? app.store.path : displayPath(app.store.path, rootDir, dataDir)
}

async function migrationSummary(app: FastifyInstance, config: Config, rootDir: string): Promise<MigrationSummary> {
  const { store } = app
  const postgres = store.backend === 'postgres'
  let applied: MigrationSummary['applied'] = []
  let pendingNames: string[] = []
  let error: string | null = null
  try {
    applied = (await store.applied()).map((m) => ({ name: m.name, applied_at: m.applied_at }))
    pendingNames = await store.pending()
  } catch (err) {
    error = (err as Error).message
  }
  return {
    alembic_ini: 'alembic.ini',
    // This host has no Alembic: its migrations are numbered .sql files applied by src/store/migrate.ts.
    alembic_exists: existsSync(join(rootDir, 'alembic.ini')),
    migrations_dir: displayPath(store.migrationsDir, rootDir, config.dataDir),
    migrations_exist: existsSync(store.migrationsDir),
    // PostgreSQL: the server and database (no credentials), which exists when it answered.
    database_path: storeLocation(app, config.dataDir, rootDir),
    database_exists: postgres || store.path === ':memory:' ? error === null : existsSync(store.path),
    applied,
    pending: pendingNames,
    commands: [
      'npm start  # applies pending migrations in order, each in a transaction, before listening',
      postgres
        ? `psql "$DATABASE_URL" -c 'SELECT name, applied_at FROM schema_migrations ORDER BY name'`
        : "sqlite3 \"$DATA_DIR/ncm-hub.sqlite\" 'SELECT name, applied_at FROM schema_migrations ORDER BY name'",
    ],
    algorithm: MIGRATION_ALGORITHM,
    backend: store.backend,
    error,
  }
}

function startupSummary(rootDir: string): StartupSummary {
  const base = 'http://127.0.0.1:8000'
  return {
    commands: ['npm ci', 'npm run build', 'HOST=0.0.0.0 PORT=8000 npm start'],
    smoke_tests: ADMIN_ROUTES.map((path) => `curl -fsS -H "Authorization: Bearer $ADMIN_TOKEN" ${base}${path} -o /dev/null -w '%{http_code} ${path}\\n'`),
    deployment_assets: DEPLOYMENT_PATHS,
    algorithm: STARTUP_ALGORITHM,
    smoke_script: `python3 scripts/smoke.py --url ${base} --token "$ADMIN_TOKEN"`,
    asset_checks: DEPLOYMENT_ASSETS.map((a) => ({ ...a, exists: existsSync(join(rootDir, a.path)) })),
  }
}

export function environmentSummary(config: Config, rootDir: string): EnvironmentSummary {
  const blockers: RequiredBlocker[] = []
  const advisories: Notice[] = []
  const production = config.nodeEnv === 'production'
  if (production && !config.adminToken) {
    blockers.push({ kind: 'environment', detail: 'ADMIN_TOKEN is unset while NODE_ENV=production: grants and the admin surface would be open to anyone' })
  }
  if (production && config.databaseUrl === null && config.databasePath === ':memory:') {
    blockers.push({ kind: 'environment', detail: 'the database is in memory while NODE_ENV=production: every write is lost on restart' })
  }
  if (production && config.redisUrl !== null && config.databaseUrl === null) {
    // REDIS_URL means replicas; replicas on their own SQLite files would each hold a different database.
    advisories.push({ kind: 'environment', detail: 'REDIS_URL is set but DATABASE_URL is not while NODE_ENV=production: replicas would each keep their own SQLite file; point them all at one PostgreSQL database' })
  }
  if (production && (config.host === '127.0.0.1' || config.host === 'localhost' || config.host === '::1')) {
    advisories.push({ kind: 'environment', detail: `HOST=${config.host} while NODE_ENV=production: only this machine can connect (deployments use 0.0.0.0 behind the proxy)` })
  }
  if (production && config.rateLimitPerMin === 0) {
    advisories.push({ kind: 'environment', detail: 'RATE_LIMIT_PER_MIN=0 while NODE_ENV=production: the per-client rate limit is off' })
  }
  for (const used of config.aliasesUsed) {
    // DATABASE_PATH is a variable of its own (the file's full path), not a second name for DATA_DIR: nothing to prefer.
    if (used.alias === 'DATABASE_PATH') continue
    advisories.push({ kind: 'environment', detail: `${used.alias} is an alias of ${used.canonical}; prefer the canonical name` })
  }
  const usedAliases = new Set(config.aliasesUsed.map((a) => a.alias))
  return {
    node_env: config.nodeEnv,
    host: config.host,
    port: config.port,
    admin_token: config.adminToken ? 'set' : 'unset',
    data_dir: dataDirDisplay(config.dataDir, rootDir),
    aliases: CONFIG_ALIASES.map((a) => ({ ...a, used: usedAliases.has(a.alias) })),
    required_blockers: blockers,
    advisories,
    algorithm: ENVIRONMENT_ALGORITHM,
  }
}
