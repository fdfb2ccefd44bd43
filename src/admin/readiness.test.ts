import { describe, expect, it } from 'vitest'
import type { DependencySummary } from '../analysers/dependencies/index.js'
import { buildReadinessReport, CHECK_WEIGHTS, type ReadinessInputs } from './readiness.js'
import { readinessReportSchema, type TruthSummary } from './schemas.js'

const deps = (overrides: Partial<DependencySummary> = {}): DependencySummary => ({
  algorithm: 'x/1',
  status: 'pass',
  manifest: { path: 'requirements.txt', exists: true, files_read: ['requirements.txt'] },
  scanned: { files: ['a.py'], truncated: false },
  declared: [],
  modules: [],
  missing_in_requirements: [],
  missing_in_environment: [],
  advisory_missing_in_environment: [],
  declared_not_imported: [],
  autofix_packages: [],
  autofix_command: null,
  advisories: [],
  environment: { checked: true, interpreter: 'Python 3.11.7', error: null },
  sources: {},
  ...overrides,
})

const truth = (overrides: Partial<TruthSummary> = {}): TruthSummary => ({
  algorithm: 'known-answer-inject/1',
  ran_at: '2026-01-01T00:00:00.000Z',
  trigger: 'first-request',
  ms: 5,
  passed: 1,
  failed: 0,
  skipped: 0,
  sandbox: 'test',
  tests: [{ name: 't', route: 'POST /api/v1/digest', operation: 'digest', source: 's', status: 'pass', ms: 1, status_code: 200, detail: null }],
  provenance: [],
  envelopes_without_flags: 0,
  ...overrides,
})

const healthy = (): ReadinessInputs => ({
  generatedAt: '2026-01-01T00:00:00.000Z',
  runRetention: { max_runs: 10_000, max_age_days: 90, stored_runs: 3, oldest_run_at: '2026-01-01T00:00:00.000Z', policy: 'p', error: null },
  jobRetention: { max_jobs: 10_000, max_age_h: 24, kept_jobs: 2, oldest_job_at: '2026-01-01T00:00:00.000Z', policy: 'p', error: null },
  scaleOut: { queue_backend: 'local', rate_limit: { store: 'memory', scope: 'process', key_prefix: null, degraded: null }, redis: null },
  versions: { hub: '1.0.0', ncm: '1.0.0' },
  smoke: [
    { path: '/admin', status_code: 200, ms: 3, ok: true, error: null },
    { path: '/api/v1/admin/go-live/overview', status_code: 200, ms: 2, ok: true, error: null },
  ],
  truth: truth(),
  truthError: null,
  python: deps(),
  node: deps({ manifest: { path: 'package.json', exists: true, files_read: ['package.json'] } }),
  migrations: {
    alembic_ini: 'alembic.ini', alembic_exists: false, migrations_dir: 'src/store/migrations', migrations_exist: true,
    database_path: '$DATA_DIR/ncm-hub.sqlite', database_exists: true, applied: [{ name: '0001-core.sql', applied_at: 'x' }],
    pending: [], commands: [], algorithm: 'sql-migrations-forward/1', backend: 'sqlite', error: null,
  },
  store: { backend: 'sqlite', location: '$DATA_DIR/ncm-hub.sqlite', ok: true, latency_ms: 0.1, version: '3.50.0', pool: null, error: null, storage: ROOM },
  startup: {
    commands: [], smoke_tests: [], algorithm: 'startup-plan/1', smoke_script: 'python3 scripts/smoke.py',
    deployment_assets: { compose_file: 'docker-compose.yml', reverse_proxy_config: 'nginx/x.conf', service_unit_dir: 'systemd' },
    asset_checks: [{ path: 'Dockerfile', exists: true, purpose: 'image' }],
  },
  environment: { node_env: 'production', host: '0.0.0.0', port: 8000, admin_token: 'set', data_dir: 'data', aliases: [], required_blockers: [], advisories: [], algorithm: 'environment-check/1' },
  algorithms: ['requirements-scan/1'],
  memory: { rss_bytes: 100 * 1024 * 1024, budget_bytes: 200 * 1024 * 1024 },
})

const ROOM = { state: 'ok' as const, free_bytes: null, total_bytes: null, reason: null }

describe('buildReadinessReport', () => {
  it('a healthy host is ready, boot pass, plan go, score 100', () => {
    const r = readinessReportSchema.parse(buildReadinessReport(healthy()))
    expect(r.summary).toMatchObject({ status: 'ready', boot_status: 'pass', readiness_score: 100, required_blocker_count: 0, advisory_count: 0, notice_count: 0 })
    expect(r.plan.readiness).toBe('go')
    expect(r.plan.checks.map((c) => c.name)).toEqual(Object.keys(CHECK_WEIGHTS))
    expect(Object.values(CHECK_WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100)
    expect(r.plan.next_steps).toEqual(['python3 scripts/smoke.py'])
    expect(r.summary.algorithms).toEqual(['readiness-weighted/1', 'boot-smoke-inject/1', 'requirements-scan/1'])
    expect(r.plan.algorithms).toEqual(r.summary.algorithms)
  })

  it('RSS over MEMORY_BUDGET_MIB: still ready, a memory notice, the memory check at half its weight', () => {
    const r = readinessReportSchema.parse(buildReadinessReport({ ...healthy(), memory: { rss_bytes: 300 * 1024 * 1024, budget_bytes: 200 * 1024 * 1024 } }))
    expect(r.summary).toMatchObject({ status: 'ready', required_blocker_count: 0, notice_count: 1 })
    expect(r.summary.readiness_score).toBe(Math.round(100 - CHECK_WEIGHTS.memory / 2))
    expect(r.blockers.notices).toEqual([{ kind: 'memory', detail: expect.stringMatching(/^RSS 300 MiB is over MEMORY_BUDGET_MIB \(200 MiB\)/) }])
    expect(r.plan.checks.find((c) => c.name === 'memory')).toMatchObject({ status: 'warn', earned: CHECK_WEIGHTS.memory / 2 })
    expect(r.plan.readiness).toBe('review')
  })

  it('the shared Redis: reported as measured; unreachable or a per-replica limiter is a notice, never a blocker', () => {
    const input = healthy()
    const redis = { url: 'redis://cache:6379', reachable: true, latency_ms: 0.4, version: '7.0.15', error: null }
    input.scaleOut = { queue_backend: 'bullmq', rate_limit: { store: 'redis', scope: 'replicas', key_prefix: 'ncm:rl:', degraded: null }, redis }
    expect(readinessReportSchema.parse(buildReadinessReport(input)).scale_out).toEqual(input.scaleOut)
    expect(buildReadinessReport(input).blockers.notices).toEqual([])

    input.scaleOut.redis = { ...redis, reachable: false, latency_ms: null, version: null, error: 'connect ECONNREFUSED' }
    input.scaleOut.rate_limit = { ...input.scaleOut.rate_limit, store: 'memory', degraded: { since: '2026-01-01T00:00:00.000Z', reason: 'connect ECONNREFUSED' } }
    const r = buildReadinessReport(input)
    expect(r.summary).toMatchObject({ status: 'ready', required_blocker_count: 0, notice_count: 1 })
    expect(r.blockers.notices).toEqual([{
      kind: 'scale-out',
      detail: 'Redis at redis://cache:6379 is unreachable (connect ECONNREFUSED): jobs cannot be dispatched; the rate limit counts per replica',
    }])
  })

  it('a failed smoke check blocks with the boot blocker naming the route', () => {
    const input = healthy()
    input.smoke![1] = { path: '/api/v1/admin/go-live/overview', status_code: 500, ms: 4, ok: false, error: 'HTTP 500 internal: boom' }
    const r = buildReadinessReport(input)
    expect(r.summary).toMatchObject({ status: 'blocked', boot_status: 'blocked', readiness_score: 70 })
    expect(r.plan.readiness).toBe('no-go')
    expect(r.blockers.boot).toMatchObject({ source: 'inject', status: 'blocked' })
    expect(r.blockers.required_blockers).toEqual([{
      kind: 'boot',
      detail: 'go-live routes failed boot smoke checks: /api/v1/admin/go-live/overview (500: HTTP 500 internal: boom)',
    }])
    expect(r.plan.required_blockers).toEqual(r.blockers.required_blockers)
  })

  it('a smoke request gets the report without smoke checks, and says so', () => {
    const r = buildReadinessReport({ ...healthy(), smoke: null })
    expect(r.blockers.boot).toMatchObject({ source: 'none', status: 'pass', checks: [], skipped: expect.stringContaining('does not re-run') })
    expect(r.summary.boot_status).toBe('pass')
  })

  it('advisories alone mean review, with half credit for the checks that have them', () => {
    const input = healthy()
    input.environment.advisories.push({ kind: 'environment', detail: 'NCM_PORT is an alias' })
    input.truth = truth({ skipped: 1, tests: [...truth().tests, { name: 'sat', route: 'POST /api/v1/sat', operation: null, source: 's', status: 'skipped', ms: null, status_code: null, detail: 'not a route' }] })
    const r = buildReadinessReport(input)
    expect(r.summary.status).toBe('ready')
    expect(r.plan.readiness).toBe('review')
    expect(r.summary.readiness_score).toBe(100 - CHECK_WEIGHTS.environment / 2 - CHECK_WEIGHTS.truth / 2)
    expect(r.blockers.notices.map((a) => a.kind)).toEqual(['truth', 'environment'])
    expect(r.blockers.advisories).toEqual([])
  })

  it('failing known answers, envelopes without flags, pending migrations and critical dependencies block', () => {
    const input = healthy()
    input.truth = truth({ failed: 1, passed: 0, envelopes_without_flags: 2, tests: [{ ...truth().tests[0]!, status: 'fail', detail: 'sha256: expected a, got b' }] })
    input.migrations.pending = ['0004-new.sql']
    input.python = deps({ status: 'fail', missing_in_environment: ['yaml'], advisories: [{ module: 'yaml', recommended_package: 'PyYAML', critical: true, findings: ['x'], detail: 'not importable' }], autofix_command: 'python3 -m pip install PyYAML' })
    input.environment.required_blockers.push({ kind: 'environment', detail: 'ADMIN_TOKEN is unset while NODE_ENV=production' })
    const r = buildReadinessReport(input)
    expect(r.blockers.required_blockers.map((b) => b.kind)).toEqual(['truth', 'envelope', 'migrations', 'environment', 'dependency'])
    expect(r.blockers.advisories).toEqual([{ kind: 'dependency', detail: { module: 'yaml', recommended_package: 'yaml', critical: true } }])
    expect(r.summary).toMatchObject({ required_blocker_count: 5, advisory_count: 1, missing_dependency_count: 1 })
    expect(r.summary).toMatchObject({ status: 'blocked', boot_status: 'pass' })
    expect(r.summary.readiness_score).toBe(CHECK_WEIGHTS.boot_smoke + CHECK_WEIGHTS.node_dependencies + CHECK_WEIGHTS.deployment_assets + CHECK_WEIGHTS.memory)
    expect(r.plan.next_steps).toContain('python3 -m pip install PyYAML')
  })

  it('a database that does not answer blocks, naming the backend and where it is', () => {
    const input = healthy()
    input.store = { backend: 'postgres', location: 'postgres://db:5432/ncm', ok: false, latency_ms: null, version: null, pool: { total: 0, idle: 0, waiting: 1, max: 10 }, error: 'connect ECONNREFUSED', storage: ROOM }
    const r = readinessReportSchema.parse(buildReadinessReport(input))
    expect(r.blockers.required_blockers).toEqual([{ kind: 'migrations', detail: 'the postgres database at postgres://db:5432/ncm does not answer: connect ECONNREFUSED' }])
    expect(r.plan.checks.find((c) => c.name === 'migrations')).toMatchObject({ status: 'fail' })
    expect(r.store).toEqual(input.store)
  })

  it('no truth summary at all is a blocker with the reason', () => {
    const r = buildReadinessReport({ ...healthy(), truth: null, truthError: 'the app is closing' })
    expect(r.blockers.required_blockers).toEqual([{ kind: 'truth', detail: 'the known-answer tests could not run: the app is closing' }])
    expect(r.truth).toBeNull()
  })

  it('missing deployment assets and an unchecked python environment are advisories', () => {
    const input = healthy()
    input.startup.asset_checks.push({ path: 'nginx/ncm-hub.conf', exists: false, purpose: 'proxy' })
    input.python = deps({ environment: { checked: false, interpreter: null, error: 'python3 is not installed on this host' } })
    const r = buildReadinessReport(input)
    expect(r.blockers.notices).toEqual([
      { kind: 'dependency', detail: 'the Python ops scripts cannot be checked: python3 is not installed on this host' },
      { kind: 'deployment', detail: 'nginx/ncm-hub.conf is missing (proxy)' },
    ])
    expect(r.plan.readiness).toBe('review')
  })

  it('a dependency missing from the manifest and from the environment is advised twice, once without critical; an unreadable include is `_r`', () => {
    const input = healthy()
    input.python = deps({
      status: 'warn',
      modules: [{ module: 'yaml', package: 'PyYAML', mapping: 'table', declared: false, importable: false, critical: false, sites: [{ file: 'a.py', line: 1 }] }],
      declared: [{ name: 'requests', specifier: '>=2.31,<3', file: 'requirements.txt', line: 4 }],
      missing_in_requirements: ['yaml'],
      advisory_missing_in_environment: ['yaml'],
      autofix_packages: ['PyYAML'],
      advisories: [
        { module: '_r dev.txt', recommended_package: '-r dev.txt', critical: false, findings: ['cannot be read'], detail: 'cannot be read' },
        { module: 'requests', recommended_package: null, critical: false, findings: ['declared but unused'], detail: 'declared but unused' },
        { module: 'yaml', recommended_package: 'PyYAML', critical: false, findings: ['x', 'y'], detail: 'x; y' },
      ],
    })
    const r = readinessReportSchema.parse(buildReadinessReport(input))
    expect(r.blockers.advisories).toEqual([
      { kind: 'dependency', detail: { module: 'yaml', recommended_package: 'PyYAML' } },
      { kind: 'dependency', detail: { module: 'yaml', recommended_package: 'PyYAML', critical: false } },
      { kind: 'dependency', detail: { module: '_r dev.txt', recommended_package: '-r dev.txt' } },
    ])
    expect(r.blockers.notices).toEqual([{ kind: 'dependency', detail: 'requests: declared but unused' }])
    expect(r.dependency_summary).toMatchObject({
      requirements_path: 'requirements.txt',
      declared_packages: ['requests>=2.31,<3'],
      referenced_external_modules: ['yaml'],
      missing_in_requirements: [{ module: 'yaml', recommended_package: 'PyYAML' }],
      advisory_missing_in_environment: [{ module: 'yaml', recommended_package: 'PyYAML', critical: false }],
      autofix_packages: ['PyYAML'],
    })
    expect(r.summary).toMatchObject({ advisory_count: 3, missing_dependency_count: 1, autofix_package_count: 1, status: 'ready' })
    expect(r.plan.readiness).toBe('review')
  })
})
