import { describe, expect, it } from 'vitest'
import type { DependencySummary } from './dependencies/types.js'
import { buildReadinessReport, CHECK_WEIGHTS, type ReadinessInputs } from './readiness.js'
import type { TruthSummary } from './truth.js'

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
  tests: [{ name: 't', route: 'POST /api/v1/digest', operation: 'digest', source: 's', status: 'pass', ms: 1, status_code: 200, detail: null }],
  provenance: [],
  envelopes_without_flags: 0,
  ...overrides,
})

const healthy = (): ReadinessInputs => ({
  generatedAt: '2026-01-01T00:00:00.000Z',
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
    pending: [], commands: [], algorithm: 'sql-migrations-forward/1', error: null,
  },
  startup: { commands: [], smoke_tests: ['python3 scripts/smoke.py'], deployment_assets: [{ path: 'Dockerfile', exists: true, purpose: 'image' }] },
  environment: { node_env: 'production', host: '0.0.0.0', port: 8000, admin_token: 'set', data_dir: 'data', aliases: [], blockers: [], advisories: [] },
  algorithms: ['requirements-scan/1'],
})

describe('buildReadinessReport', () => {
  it('a healthy host is ready, boot pass, plan go, score 100', () => {
    const r = buildReadinessReport(healthy())
    expect(r.summary).toMatchObject({ status: 'ready', boot_status: 'pass', readiness_score: 100, blockers: 0, advisories: 0 })
    expect(r.plan.readiness).toBe('go')
    expect(r.plan.checks.map((c) => c.name)).toEqual(Object.keys(CHECK_WEIGHTS))
    expect(Object.values(CHECK_WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100)
    expect(r.plan.next_steps).toEqual(['python3 scripts/smoke.py'])
    expect(r.algorithms).toEqual(['readiness-weighted/1', 'boot-smoke-inject/1', 'requirements-scan/1'])
  })

  it('a failed smoke check blocks with the boot blocker naming the route', () => {
    const input = healthy()
    input.smoke![1] = { path: '/api/v1/admin/go-live/overview', status_code: 500, ms: 4, ok: false, error: 'HTTP 500 internal: boom' }
    const r = buildReadinessReport(input)
    expect(r.summary).toMatchObject({ status: 'blocked', boot_status: 'blocked', readiness_score: 70 })
    expect(r.plan.readiness).toBe('no-go')
    expect(r.boot.status).toBe('blocked')
    expect(r.blockers).toEqual([{
      kind: 'boot',
      detail: 'go-live routes failed boot smoke checks: /api/v1/admin/go-live/overview (500: HTTP 500 internal: boom)',
      required: true,
    }])
  })

  it('a smoke request gets the report without smoke checks, and says so', () => {
    const r = buildReadinessReport({ ...healthy(), smoke: null })
    expect(r.boot).toMatchObject({ status: 'pass', checks: [], skipped: expect.stringContaining('does not re-run') })
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
    expect(r.advisories.map((a) => a.kind)).toEqual(['truth', 'environment'])
  })

  it('failing known answers, envelopes without flags, pending migrations and critical dependencies block', () => {
    const input = healthy()
    input.truth = truth({ failed: 1, passed: 0, envelopes_without_flags: 2, tests: [{ ...truth().tests[0]!, status: 'fail', detail: 'sha256: expected a, got b' }] })
    input.migrations.pending = ['0004-new.sql']
    input.python = deps({ status: 'fail', missing_in_environment: ['yaml'], advisories: [{ module: 'yaml', recommended_package: 'PyYAML', critical: true, findings: ['x'], detail: 'not importable' }], autofix_command: 'python3 -m pip install PyYAML' })
    input.environment.blockers.push({ kind: 'environment', detail: 'ADMIN_TOKEN is unset while NODE_ENV=production', required: true })
    const r = buildReadinessReport(input)
    expect(r.blockers.map((b) => b.kind)).toEqual(['truth', 'envelope', 'migrations', 'environment', 'python-dependency'])
    expect(r.blockers.every((b) => b.required === true)).toBe(true)
    expect(r.summary).toMatchObject({ status: 'blocked', boot_status: 'pass' })
    expect(r.summary.readiness_score).toBe(CHECK_WEIGHTS.boot_smoke + CHECK_WEIGHTS.node_dependencies + CHECK_WEIGHTS.deployment_assets)
    expect(r.plan.next_steps).toContain('python3 -m pip install PyYAML')
  })

  it('no truth summary at all is a blocker with the reason', () => {
    const r = buildReadinessReport({ ...healthy(), truth: null, truthError: 'the app is closing' })
    expect(r.blockers).toEqual([{ kind: 'truth', detail: 'the known-answer tests could not run: the app is closing', required: true }])
    expect(r.truth).toBeNull()
  })

  it('missing deployment assets and an unchecked python environment are advisories', () => {
    const input = healthy()
    input.startup.deployment_assets.push({ path: 'nginx/ncm-hub.conf', exists: false, purpose: 'proxy' })
    input.python = deps({ environment: { checked: false, interpreter: null, error: 'python3 is not installed on this host' } })
    const r = buildReadinessReport(input)
    expect(r.advisories).toEqual([
      { kind: 'python-dependency', detail: 'the Python ops scripts cannot be checked: python3 is not installed on this host' },
      { kind: 'deployment', detail: 'nginx/ncm-hub.conf is missing (proxy)' },
    ])
    expect(r.plan.readiness).toBe('review')
  })
})
