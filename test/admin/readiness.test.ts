// The go-live readiness report through the real route: every field of seed §2.3 walked by name and type on a healthy
// host, on one whose admin route fails and on one whose Python environment lacks modules; the response schema in /docs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { REPO_ROOT } from '../../src/version.js'
import { internalHeaders } from '../../src/access/internal.js'
import { ADMIN_ROUTES } from '../../src/admin/smoke.js'
import { CHECK_WEIGHTS } from '../../src/admin/readiness.js'
import { readinessReportSchema } from '../../src/admin/schemas.js'
import { serializerOf } from '../../src/json/serializer.js'

const OVERVIEW = '/api/v1/admin/go-live/overview'

type FieldType = 'string' | 'iso-time' | 'integer' | 'number' | 'boolean' | 'array' | 'object'

/**
 * Every field seed §2.3 names, copied from its tables by hand (not derived from our schema, so a rename on either
 * side fails): `a.b` a field, `a[]` each element of the array `a`, a trailing `?` an optional field.
 */
const dependencySummaryFields = (at: string): Array<[string, FieldType]> => [
  [at, 'object'],
  [`${at}.requirements_path`, 'string'],
  [`${at}.declared_packages`, 'array'],
  [`${at}.declared_packages[]`, 'string'],
  [`${at}.referenced_external_modules`, 'array'],
  [`${at}.referenced_external_modules[]`, 'string'],
  [`${at}.missing_in_requirements`, 'array'],
  [`${at}.missing_in_requirements[]`, 'object'],
  [`${at}.missing_in_requirements[].module`, 'string'],
  [`${at}.missing_in_requirements[].recommended_package`, 'string'],
  [`${at}.missing_in_environment`, 'array'],
  [`${at}.advisory_missing_in_environment`, 'array'],
  [`${at}.advisory_missing_in_environment[]`, 'object'],
  [`${at}.advisory_missing_in_environment[].module`, 'string'],
  [`${at}.advisory_missing_in_environment[].recommended_package`, 'string'],
  [`${at}.advisory_missing_in_environment[].critical`, 'boolean'],
  [`${at}.autofix_packages`, 'array'],
  [`${at}.autofix_packages[]`, 'string'],
  [`${at}.algorithms`, 'array'],
  [`${at}.algorithms[]`, 'string'],
]
const advisoryFields = (at: string): Array<[string, FieldType]> => [
  [at, 'array'],
  [`${at}[]`, 'object'],
  [`${at}[].kind`, 'string'],
  [`${at}[].detail`, 'object'],
  [`${at}[].detail.module`, 'string'],
  [`${at}[].detail.recommended_package`, 'string'],
  [`${at}[].detail.critical?`, 'boolean'],
]
export const SEED_FIELDS: Array<[string, FieldType]> = [
  ['summary', 'object'],
  ['summary.generated_at', 'iso-time'],
  ['summary.status', 'string'],
  ['summary.readiness_score', 'integer'],
  ['summary.required_blocker_count', 'integer'],
  ['summary.advisory_count', 'integer'],
  ['summary.boot_status', 'string'],
  ['summary.missing_dependency_count', 'integer'],
  ['summary.autofix_package_count', 'integer'],
  ['summary.algorithms', 'array'],
  ['summary.algorithms[]', 'string'],
  ['blockers', 'object'],
  ['blockers.generated_at', 'iso-time'],
  ['blockers.required_blockers', 'array'],
  ['blockers.required_blockers[]', 'object'],
  ['blockers.required_blockers[].kind', 'string'],
  ['blockers.required_blockers[].detail', 'string'],
  ...advisoryFields('blockers.advisories'),
  ['blockers.boot', 'object'],
  ['blockers.boot.source', 'string'],
  ['blockers.boot.status', 'string'],
  ['blockers.boot.checks', 'array'],
  ['blockers.algorithm', 'string'],
  ['plan', 'object'],
  ['plan.generated_at', 'iso-time'],
  ['plan.readiness', 'string'],
  ['plan.required_blockers', 'array'],
  ...advisoryFields('plan.advisories'),
  ...dependencySummaryFields('plan.dependency_summary'),
  ['plan.environment_summary', 'object'],
  ['plan.environment_summary.aliases', 'array'],
  ['plan.environment_summary.required_blockers', 'array'],
  ['plan.environment_summary.advisories', 'array'],
  ['plan.environment_summary.algorithm', 'string'],
  ['plan.migration_summary', 'object'],
  ['plan.migration_summary.alembic_ini', 'string'],
  ['plan.migration_summary.alembic_exists', 'boolean'],
  ['plan.migration_summary.migrations_dir', 'string'],
  ['plan.migration_summary.migrations_exist', 'boolean'],
  ['plan.migration_summary.database_path', 'string'],
  ['plan.migration_summary.database_exists', 'boolean'],
  ['plan.migration_summary.commands', 'array'],
  ['plan.migration_summary.commands[]', 'string'],
  ['plan.migration_summary.algorithm', 'string'],
  ['plan.startup_summary', 'object'],
  ['plan.startup_summary.commands', 'array'],
  ['plan.startup_summary.commands[]', 'string'],
  ['plan.startup_summary.smoke_tests', 'array'],
  ['plan.startup_summary.smoke_tests[]', 'string'],
  ['plan.startup_summary.deployment_assets', 'object'],
  ['plan.startup_summary.algorithm', 'string'],
  ['plan.algorithms', 'array'],
  ['plan.algorithms[]', 'string'],
  ...dependencySummaryFields('dependency_summary'),
]

const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/

function typeProblem(value: unknown, type: FieldType): string | null {
  const ok = {
    string: typeof value === 'string',
    'iso-time': typeof value === 'string' && ISO_WITH_OFFSET.test(value),
    integer: Number.isInteger(value),
    number: typeof value === 'number' && Number.isFinite(value),
    boolean: typeof value === 'boolean',
    array: Array.isArray(value),
    object: value !== null && typeof value === 'object' && !Array.isArray(value),
  }[type]
  return ok ? null : `expected ${type}, got ${JSON.stringify(value)?.slice(0, 80)}`
}

/** Walks `path` in `root`; returns one problem per missing or mistyped field, and how many values were checked. */
export function walkField(root: unknown, path: string, type: FieldType): { problems: string[]; checked: number } {
  const optional = path.endsWith('?')
  const segments = (optional ? path.slice(0, -1) : path).split('.')
  let values: Array<{ at: string; value: unknown }> = [{ at: '', value: root }]
  const problems: string[] = []
  for (const [i, segment] of segments.entries()) {
    const each = segment.endsWith('[]')
    const name = each ? segment.slice(0, -2) : segment
    const last = i === segments.length - 1 && !each
    const next: typeof values = []
    for (const { at, value } of values) {
      const here = at ? `${at}.${name}` : name
      const obj = value as Record<string, unknown>
      if (!Object.prototype.hasOwnProperty.call(obj, name)) {
        if (!(optional && last)) problems.push(`${here}: missing`)
        continue
      }
      const child = obj[name]
      if (each) {
        if (!Array.isArray(child)) problems.push(`${here}: expected array`)
        else child.forEach((item, k) => next.push({ at: `${here}[${k}]`, value: item }))
      } else {
        next.push({ at: here, value: child })
      }
    }
    values = next
  }
  for (const { at, value } of values) {
    const problem = typeProblem(value, type)
    if (problem) problems.push(`${at}: ${problem}`)
  }
  return { problems, checked: values.length }
}

/** Walks every seed field; returns the problems and, per field, how many values it checked. */
function walkSeed(report: unknown) {
  const problems: string[] = []
  const checked = new Map<string, number>()
  for (const [path, type] of SEED_FIELDS) {
    const result = walkField(report, path, type)
    problems.push(...result.problems)
    checked.set(path, result.checked)
  }
  return { problems, checked }
}

/** Extra checks the seed states in words: the three deployment paths, the start step on 0.0.0.0:8000. */
function seedWords(report: any): void {
  const assets = report.plan.startup_summary.deployment_assets
  expect(Object.values(assets)).toHaveLength(3)
  for (const p of Object.values(assets)) expect(typeof p).toBe('string')
  expect(Object.values(assets)).toEqual(['docker-compose.yml', 'nginx/ncm-hub.conf', 'systemd'])
  expect(report.plan.startup_summary.commands.at(-1)).toBe('HOST=0.0.0.0 PORT=8000 npm start')
  expect(report.plan.startup_summary.smoke_tests).toHaveLength(ADMIN_ROUTES.length)
  ADMIN_ROUTES.forEach((route, i) => expect(report.plan.startup_summary.smoke_tests[i]).toContain(route))
  expect(report.plan.dependency_summary).toEqual(report.dependency_summary)
  expect(report.plan.required_blockers).toEqual(report.blockers.required_blockers)
  expect(report.plan.advisories).toEqual(report.blockers.advisories)
  expect(report.summary.required_blocker_count).toBe(report.blockers.required_blockers.length)
  expect(report.summary.advisory_count).toBe(report.blockers.advisories.length)
}

describe('the seed §2.3 field walk', () => {
  it('fails when a field is renamed, missing, mistyped or an element of a list is wrong', () => {
    const report = { summary: { advisories_count: 1, generated_at: '2026-01-01T00:00:00Z', readiness_score: 9.5 }, blockers: { advisories: [{ kind: 'dependency', detail: { module: 'yaml' } }] } }
    expect(walkField(report, 'summary.advisory_count', 'integer').problems).toEqual(['summary.advisory_count: missing'])
    expect(walkField(report, 'summary.readiness_score', 'integer').problems).toEqual(['summary.readiness_score: expected integer, got 9.5'])
    expect(walkField(report, 'summary.generated_at', 'iso-time').problems).toEqual([])
    expect(walkField({ summary: { generated_at: '2026-01-01 00:00' } }, 'summary.generated_at', 'iso-time').problems).toHaveLength(1)
    expect(walkField(report, 'blockers.advisories[].detail.recommended_package', 'string').problems)
      .toEqual(['blockers.advisories[0].detail.recommended_package: missing'])
    expect(walkField(report, 'blockers.advisories[].detail.critical?', 'boolean')).toEqual({ problems: [], checked: 0 })
    expect(walkSeed(report).problems.length).toBeGreaterThan(40)
  })
})

describe('GET /api/v1/admin/go-live/overview', () => {
  // One app for the whole file: building one starts a mill worker, and the report is read-only.
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
  })
  afterAll(async () => {
    await app.close()
  })

  it('has every field of seed §2.3 with its name, nesting and type (healthy host)', async () => {
    const res = await app.inject(OVERVIEW)
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body).toMatchObject({ ok: true, invented_metrics: false, refuse: null })
    const { problems, checked } = walkSeed(body.data)
    expect(problems).toEqual([])
    expect(checked.get('summary.algorithms[]')).toBeGreaterThan(0)
    seedWords(body.data)
    const report = readinessReportSchema.parse(body.data)
    expect(report.summary.readiness_score).toBe(Math.round(report.plan.checks.reduce((s, c) => s + c.earned, 0)))
    expect(report.summary.algorithms).toEqual(expect.arrayContaining(['boot-smoke-inject/1', 'requirements-scan/1', 'package-json-scan/1']))
    expect(report.plan.migration_summary).toMatchObject({ alembic_exists: false, migrations_dir: 'src/store/migrations/sqlite', migrations_exist: true, database_path: ':memory:', pending: [] })
    expect(report.plan.migration_summary.applied.map((m) => m.name)).toContain('0001-core.sql')
    expect(report.plan.environment_summary.aliases.map((a) => a.alias)).toContain('NCM_PORT')
  })

  it('its Node dependency analysis, spliced in as bytes written once per analysis, is the report\'s own, written by the route\'s schema', async () => {
    const [first, second] = [json(await app.inject(OVERVIEW)).data, json(await app.inject(OVERVIEW)).data]
    const report = await app.adminCollectors.readiness.report({ smoke: false })
    const written = JSON.parse(serializerOf(readinessReportSchema)(report)) as { node_dependency_summary: unknown }
    expect(first.node_dependency_summary).toEqual(written.node_dependency_summary)
    expect(second.node_dependency_summary).toEqual(first.node_dependency_summary)
    expect(JSON.stringify(first.node_dependency_summary).length).toBeGreaterThan(10_000)
  })

  it('a healthy host is ready: boot pass from in-process checks, every check listed, all four admin routes 2xx', async () => {
    const report = readinessReportSchema.parse(json(await app.inject(OVERVIEW)).data)
    expect(report.summary.status).toBe('ready')
    expect(report.summary.boot_status).toBe('pass')
    expect(report.blockers.required_blockers).toEqual([])
    expect(report.plan.readiness).not.toBe('no-go')
    expect(report.plan.checks.map((c) => c.name)).toEqual(Object.keys(CHECK_WEIGHTS))
    expect(report.blockers.boot).toMatchObject({ source: 'inject', status: 'pass', skipped: null })
    expect(report.blockers.boot.checks.map((c) => [c.path, c.status_code, c.ok])).toEqual(ADMIN_ROUTES.map((path) => [path, 200, true]))
    expect(report.truth).toMatchObject({ failed: 0, envelopes_without_flags: 0 })
  })

  it('is documented in /docs/json with its response schema', async () => {
    const doc = json(await app.inject('/docs/json'))
    const text = JSON.stringify(doc.paths[OVERVIEW].get.responses['200'])
    for (const field of ['required_blocker_count', 'missing_dependency_count', 'referenced_external_modules', 'deployment_assets', 'recommended_package']) {
      expect(text).toContain(field)
    }
    for (const route of ['/api/v1/admin/truth/summary', '/api/v1/admin/command-post/summary']) {
      expect(JSON.stringify(doc.paths[route].get.responses['200'])).toContain('"data"')
    }
    expect(JSON.stringify(doc.paths['/api/v1/admin/command-post/summary'].get.responses['200'])).toContain('refusal_rate')
    expect(JSON.stringify(doc.paths['/api/v1/admin/truth/summary'].get.responses['200'])).toContain('envelopes_without_flags')
  })

  it('exposes no absolute host path', async () => {
    const text = (await app.inject(OVERVIEW)).body
    expect(text).not.toContain(REPO_ROOT)
    expect(text).not.toContain(process.cwd())
  })

  it('a failing admin route blocks go-live: boot blocker naming it, boot.status blocked, every seed field still there', async () => {
    const working = app.metrics.snapshot
    app.metrics.snapshot = () => {
      throw new Error('metrics broken on purpose')
    }
    let data
    try {
      data = json(await app.inject(OVERVIEW)).data
    } finally {
      app.metrics.snapshot = working
    }
    const { problems, checked } = walkSeed(data)
    expect(problems).toEqual([])
    expect(checked.get('blockers.required_blockers[].kind')).toBeGreaterThan(0)
    seedWords(data)
    const report = readinessReportSchema.parse(data)
    expect(report.summary).toMatchObject({ status: 'blocked', boot_status: 'blocked' })
    expect(report.plan.readiness).toBe('no-go')
    expect(report.blockers.boot.status).toBe('blocked')
    const failed = report.blockers.boot.checks.filter((c) => !c.ok)
    expect(failed.map((c) => [c.path, c.status_code])).toEqual([['/api/v1/admin/command-post/summary', 500]])
    expect(report.blockers.required_blockers).toContainEqual({
      kind: 'boot',
      detail: expect.stringMatching(/^go-live routes failed boot smoke checks: \/api\/v1\/admin\/command-post\/summary \(500: HTTP 500 internal/),
    })
    expect(report.plan.checks.find((c) => c.name === 'boot_smoke')).toMatchObject({ status: 'fail', earned: 0 })
  })

  it('a smoke request gets the report without running the smoke checks (no recursion)', async () => {
    const report = readinessReportSchema.parse(json(await app.inject({ url: OVERVIEW, headers: internalHeaders({ smoke: true }) })).data)
    expect(report.blockers.boot).toMatchObject({ source: 'none', checks: [] })
    expect(report.blockers.boot.skipped).toMatch(/does not re-run the smoke checks/)
  })

  it('an envelope emitted without the flags is counted and blocks', async () => {
    app.callerCounters.envelopesWithoutFlags = 2
    try {
      const report = readinessReportSchema.parse(json(await app.inject(OVERVIEW)).data)
      expect(report.blockers.required_blockers).toContainEqual({ kind: 'envelope', detail: expect.stringContaining('2 caller envelope(s)') })
    } finally {
      app.callerCounters.envelopesWithoutFlags = 0
    }
  })
})

describe('a host whose python3 lacks every module', () => {
  it('lists the dependency advisories in the seed shape (module, recommended_package, critical)', async () => {
    const app = await buildTestApp({
      admin: { pythonProbe: async (modules) => ({ version: '3.11.7', importable: Object.fromEntries(modules.map((m) => [m, false])), error: null }) },
    })
    try {
      const data = json(await app.inject(OVERVIEW)).data
      const { problems, checked } = walkSeed(data)
      expect(problems).toEqual([])
      expect(checked.get('blockers.advisories[].detail.module')).toBeGreaterThan(0)
      expect(checked.get('dependency_summary.advisory_missing_in_environment[].critical')).toBeGreaterThan(0)
      const report = readinessReportSchema.parse(data)
      // requests is declared in requirements.txt and its import in scripts/client_example.py is guarded: advisory, not critical.
      expect(report.dependency_summary.advisory_missing_in_environment).toContainEqual({ module: 'requests', recommended_package: 'requests', critical: false })
      expect(report.blockers.advisories).toContainEqual({ kind: 'dependency', detail: { module: 'requests', recommended_package: 'requests', critical: false } })
      expect(report.summary.missing_dependency_count).toBeGreaterThan(0)
      expect(report.summary.autofix_package_count).toBe(report.dependency_summary.autofix_packages.length + report.node_dependency_summary.autofix_packages.length)
    } finally {
      await app.close()
    }
  })
})

describe('the environment in production', () => {
  it('ADMIN_TOKEN unset while NODE_ENV=production is a required environment blocker', async () => {
    const app = await buildTestApp({ env: { NODE_ENV: 'production' } })
    try {
      const report = readinessReportSchema.parse(json(await app.inject(OVERVIEW)).data)
      const env = report.plan.environment_summary
      expect(env.required_blockers).toContainEqual({ kind: 'environment', detail: expect.stringContaining('ADMIN_TOKEN is unset while NODE_ENV=production') })
      expect(env.required_blockers).toContainEqual({ kind: 'environment', detail: expect.stringContaining('database is in memory') })
      expect(report.blockers.required_blockers).toEqual(expect.arrayContaining(env.required_blockers))
      expect(report.summary.status).toBe('blocked')
    } finally {
      await app.close()
    }
  })
})
