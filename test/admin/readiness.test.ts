// The go-live readiness report through the real route: every contract field, a healthy host, a broken admin route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, json } from '../helper.js'
import { REPO_ROOT } from '../../src/version.js'
import { internalHeaders } from '../../src/admin/internal.js'
import { ADMIN_ROUTES } from '../../src/admin/smoke.js'
import { CHECK_WEIGHTS } from '../../src/admin/readiness.js'

const OVERVIEW = '/api/v1/admin/go-live/overview'

const advisory = z.object({ module: z.string(), recommended_package: z.string().nullable(), critical: z.boolean(), findings: z.array(z.string()), detail: z.string() }).strict()
const dependencySummary = z.object({
  algorithm: z.string(),
  status: z.enum(['pass', 'warn', 'fail']),
  manifest: z.object({ path: z.string(), exists: z.boolean(), files_read: z.array(z.string()) }).strict(),
  scanned: z.object({ files: z.array(z.string()), truncated: z.boolean() }).strict(),
  declared: z.array(z.object({ name: z.string(), specifier: z.string(), file: z.string(), line: z.number().int().optional(), scope: z.string().optional() }).strict()),
  modules: z.array(z.object({
    module: z.string(), package: z.string(), mapping: z.string(), declared: z.boolean(), importable: z.boolean().nullable(),
    critical: z.boolean(), sites: z.array(z.object({ file: z.string(), line: z.number().int() }).strict()),
  }).strict()),
  missing_in_requirements: z.array(z.string()),
  missing_in_environment: z.array(z.string()),
  advisory_missing_in_environment: z.array(z.string()),
  declared_not_imported: z.array(z.string()),
  autofix_packages: z.array(z.string()),
  autofix_command: z.string().nullable(),
  advisories: z.array(advisory),
  runtime: z.object({ entry_points: z.array(z.string()), reachable_files: z.number().int() }).strict().optional(),
  environment: z.object({ checked: z.boolean(), interpreter: z.string().nullable(), error: z.string().nullable() }).strict(),
  sources: z.record(z.string(), z.string()),
}).strict()
const blocker = z.object({ kind: z.string(), detail: z.string(), required: z.literal(true) }).strict()
const advisoryItem = z.object({ kind: z.string(), detail: z.string() }).strict()
const smokeCheck = z.object({ path: z.string(), status_code: z.number().int().nullable(), ms: z.number().nonnegative(), ok: z.boolean(), error: z.string().nullable() }).strict()

/** The report's contract (SPEC §4.1): every field, its name and its type. */
const reportSchema = z.object({
  summary: z.object({
    status: z.enum(['ready', 'blocked']),
    boot_status: z.enum(['pass', 'blocked']),
    readiness_score: z.number().int().min(0).max(100),
    blockers: z.number().int(),
    advisories: z.number().int(),
    generated_at: z.iso.datetime(),
    hub: z.string().regex(/^\d+\.\d+\.\d+$/),
    ncm: z.string().regex(/^\d+\.\d+\.\d+$/),
  }).strict(),
  blockers: z.array(blocker),
  advisories: z.array(advisoryItem),
  plan: z.object({
    readiness: z.enum(['go', 'review', 'no-go']),
    checks: z.array(z.object({ name: z.string(), weight: z.number(), status: z.enum(['pass', 'warn', 'fail']), earned: z.number(), detail: z.string() }).strict()),
    weights: z.record(z.string(), z.number()),
    scoring: z.string(),
    next_steps: z.array(z.string()),
  }).strict(),
  dependency_summary: dependencySummary,
  node_dependency_summary: dependencySummary,
  migration_summary: z.object({
    alembic_ini: z.string(), alembic_exists: z.literal(false), migrations_dir: z.string(), migrations_exist: z.boolean(),
    database_path: z.string(), database_exists: z.boolean(), applied: z.array(z.object({ name: z.string(), applied_at: z.string() }).strict()),
    pending: z.array(z.string()), commands: z.array(z.string()), algorithm: z.string(), error: z.string().nullable(),
  }).strict(),
  startup_summary: z.object({
    commands: z.array(z.object({ step: z.enum(['install', 'build', 'start']), command: z.string() }).strict()),
    smoke_tests: z.array(z.string()),
    deployment_assets: z.array(z.object({ path: z.string(), exists: z.boolean(), purpose: z.string() }).strict()),
  }).strict(),
  environment_summary: z.object({
    node_env: z.string(), host: z.string(), port: z.number().int(), admin_token: z.enum(['set', 'unset']), data_dir: z.string(),
    aliases: z.array(z.object({ alias: z.string(), canonical: z.string(), meaning: z.string(), used: z.boolean() }).strict()),
    blockers: z.array(blocker), advisories: z.array(advisoryItem),
  }).strict(),
  boot: z.object({ status: z.enum(['pass', 'blocked']), checks: z.array(smokeCheck), skipped: z.string().nullable(), algorithm: z.string() }).strict(),
  truth: z.object({ passed: z.number().int(), failed: z.number().int(), skipped: z.number().int(), ran_at: z.string().nullable(), envelopes_without_flags: z.number().int() }).strict().nullable(),
  algorithms: z.array(z.string()).min(1),
}).strict()

describe('GET /api/v1/admin/go-live/overview', () => {
  // One app for the whole file: building one starts a mill worker, and the report is read-only.
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
  })
  afterAll(async () => {
    await app.close()
  })

  it('answers an envelope whose data has every contract field with its type', async () => {
    const res = await app.inject(OVERVIEW)
    expect(res.statusCode).toBe(200)
    const body = json(res)
    expect(body).toMatchObject({ ok: true, invented_metrics: false, refuse: null })
    const report = reportSchema.parse(body.data)
    expect(report.summary.readiness_score).toBe(Math.round(report.plan.checks.reduce((s, c) => s + c.earned, 0)))
    expect(report.algorithms).toEqual(expect.arrayContaining(['boot-smoke-inject/1', 'requirements-scan/1', 'package-json-scan/1']))
    expect(report.startup_summary.commands.find((c) => c.step === 'start')!.command).toContain('HOST=0.0.0.0 PORT=8000')
    expect(report.startup_summary.smoke_tests.filter((c) => c.startsWith('curl'))).toHaveLength(ADMIN_ROUTES.length)
    expect(report.startup_summary.deployment_assets.map((a) => a.path)).toEqual(expect.arrayContaining(['docker-compose.yml', 'nginx/ncm-hub.conf', 'systemd/ncm-hub.service']))
    expect(report.migration_summary).toMatchObject({ alembic_exists: false, migrations_dir: 'src/store/migrations', migrations_exist: true, database_path: ':memory:', pending: [] })
    expect(report.migration_summary.applied.map((m) => m.name)).toContain('0001-core.sql')
    expect(report.environment_summary.aliases.map((a) => a.alias)).toContain('NCM_PORT')
  })

  it('a healthy host is ready: boot pass, every check listed, all four admin routes 2xx, no failed known answer', async () => {
    const report = reportSchema.parse(json(await app.inject(OVERVIEW)).data)
    expect(report.summary.status).toBe('ready')
    expect(report.summary.boot_status).toBe('pass')
    expect(report.blockers).toEqual([])
    expect(report.plan.readiness).not.toBe('no-go')
    expect(report.plan.checks.map((c) => c.name)).toEqual(Object.keys(CHECK_WEIGHTS))
    expect(report.boot).toMatchObject({ status: 'pass', skipped: null })
    expect(report.boot.checks.map((c) => [c.path, c.status_code, c.ok])).toEqual(ADMIN_ROUTES.map((path) => [path, 200, true]))
    expect(report.truth).toMatchObject({ failed: 0, envelopes_without_flags: 0 })
  })

  it('exposes no absolute host path', async () => {
    const text = (await app.inject(OVERVIEW)).body
    expect(text).not.toContain(REPO_ROOT)
    expect(text).not.toContain(process.cwd())
  })

  it('a failing admin route blocks go-live: boot blocker naming it, boot.status blocked', async () => {
    const working = app.metrics.snapshot
    app.metrics.snapshot = () => {
      throw new Error('metrics broken on purpose')
    }
    let report
    try {
      report = reportSchema.parse(json(await app.inject(OVERVIEW)).data)
    } finally {
      app.metrics.snapshot = working
    }
    expect(report.summary).toMatchObject({ status: 'blocked', boot_status: 'blocked' })
    expect(report.plan.readiness).toBe('no-go')
    expect(report.boot.status).toBe('blocked')
    const failed = report.boot.checks.filter((c) => !c.ok)
    expect(failed.map((c) => [c.path, c.status_code])).toEqual([['/api/v1/admin/command-post/summary', 500]])
    expect(report.blockers).toContainEqual({
      kind: 'boot',
      detail: expect.stringMatching(/^go-live routes failed boot smoke checks: \/api\/v1\/admin\/command-post\/summary \(500: HTTP 500 internal/),
      required: true,
    })
    expect(report.plan.checks.find((c) => c.name === 'boot_smoke')).toMatchObject({ status: 'fail', earned: 0 })
  })

  it('a smoke request gets the report without running the smoke checks (no recursion)', async () => {
    const report = reportSchema.parse(json(await app.inject({ url: OVERVIEW, headers: internalHeaders({ smoke: true }) })).data)
    expect(report.boot.checks).toEqual([])
    expect(report.boot.skipped).toMatch(/does not re-run the smoke checks/)
  })

  it('an envelope emitted without the flags is counted and blocks', async () => {
    app.callerCounters.envelopesWithoutFlags = 2
    try {
      const report = reportSchema.parse(json(await app.inject(OVERVIEW)).data)
      expect(report.blockers).toContainEqual({ kind: 'envelope', detail: expect.stringContaining('2 caller envelope(s)'), required: true })
    } finally {
      app.callerCounters.envelopesWithoutFlags = 0
    }
  })
})

describe('the environment in production', () => {
  it('ADMIN_TOKEN unset while NODE_ENV=production is a required environment blocker', async () => {
    const app = await buildTestApp({ env: { NODE_ENV: 'production' } })
    try {
      const report = reportSchema.parse(json(await app.inject(OVERVIEW)).data)
      expect(report.environment_summary.blockers).toContainEqual({ kind: 'environment', detail: expect.stringContaining('ADMIN_TOKEN is unset while NODE_ENV=production'), required: true })
      expect(report.environment_summary.blockers).toContainEqual({ kind: 'environment', detail: expect.stringContaining('database is in memory'), required: true })
      expect(report.summary.status).toBe('blocked')
    } finally {
      await app.close()
    }
  })
})
