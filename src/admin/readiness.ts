// The go-live readiness report (SPEC §4.1) as a pure function of its measured inputs: blockers, advisories, the
// weighted score and the plan. Collecting the inputs (smoke checks, analyses, the store) is collect.ts's job.
import type { DependencySummary } from './dependencies/types.js'
import type { SmokeCheck } from './smoke.js'
import type { TruthSummary } from './truth.js'

export const READINESS_ALGORITHM = 'readiness-weighted/1'

/**
 * Weights of the checks in the score (sum 100). A check that passes earns its weight, one with advisories only earns
 * half, one with a blocker earns nothing. The boot smoke checks weigh most: a host whose own admin routes fail is not
 * operable; then correctness (truth), then the data (migrations), then configuration and dependencies.
 */
export const CHECK_WEIGHTS = {
  boot_smoke: 30,
  truth: 20,
  migrations: 15,
  environment: 10,
  node_dependencies: 10,
  python_dependencies: 5,
  deployment_assets: 10,
} as const
export type CheckName = keyof typeof CHECK_WEIGHTS

export const CHECK_CREDIT = { pass: 1, warn: 0.5, fail: 0 } as const

export interface Blocker {
  kind: string
  detail: string
  required: true
}

export interface Advisory {
  kind: string
  detail: string
}

export interface MigrationSummary {
  alembic_ini: string
  alembic_exists: boolean
  migrations_dir: string
  migrations_exist: boolean
  database_path: string
  database_exists: boolean
  applied: Array<{ name: string; applied_at: string }>
  pending: string[]
  commands: string[]
  algorithm: string
  error: string | null
}

export interface DeploymentAsset {
  path: string
  exists: boolean
  purpose: string
}

export interface StartupSummary {
  commands: Array<{ step: 'install' | 'build' | 'start'; command: string }>
  smoke_tests: string[]
  deployment_assets: DeploymentAsset[]
}

export interface EnvironmentSummary {
  node_env: string
  host: string
  port: number
  admin_token: 'set' | 'unset'
  data_dir: string
  aliases: Array<{ alias: string; canonical: string; meaning: string; used: boolean }>
  blockers: Blocker[]
  advisories: Advisory[]
}

export interface BootSummary {
  status: 'pass' | 'blocked'
  checks: SmokeCheck[]
  /** Set when the checks were not run for this report (a smoke check requesting the report itself). */
  skipped: string | null
  algorithm: string
}

export interface ReadinessInputs {
  generatedAt: string
  versions: { hub: string; ncm: string }
  /** null when this report answers a smoke check: the checks are not re-run (no recursion). */
  smoke: SmokeCheck[] | null
  truth: TruthSummary | null
  truthError: string | null
  python: DependencySummary
  node: DependencySummary
  migrations: MigrationSummary
  startup: StartupSummary
  environment: EnvironmentSummary
  algorithms: string[]
}

export interface ReadinessCheck {
  name: CheckName
  weight: number
  status: 'pass' | 'warn' | 'fail'
  earned: number
  detail: string
}

export interface ReadinessReport {
  summary: {
    status: 'ready' | 'blocked'
    boot_status: 'pass' | 'blocked'
    readiness_score: number
    blockers: number
    advisories: number
    generated_at: string
    hub: string
    ncm: string
  }
  blockers: Blocker[]
  advisories: Advisory[]
  plan: {
    readiness: 'go' | 'review' | 'no-go'
    checks: ReadinessCheck[]
    weights: typeof CHECK_WEIGHTS
    scoring: string
    next_steps: string[]
  }
  dependency_summary: DependencySummary
  node_dependency_summary: DependencySummary
  migration_summary: MigrationSummary
  startup_summary: StartupSummary
  environment_summary: EnvironmentSummary
  boot: BootSummary
  truth: { passed: number; failed: number; skipped: number; ran_at: string | null; envelopes_without_flags: number } | null
  algorithms: string[]
}

export function buildReadinessReport(input: ReadinessInputs): ReadinessReport {
  const blockers: Blocker[] = []
  const advisories: Advisory[] = []
  const checks: ReadinessCheck[] = []
  const nextSteps: string[] = []
  const block = (kind: string, detail: string) => blockers.push({ kind, detail, required: true })
  const advise = (kind: string, detail: string) => advisories.push({ kind, detail })
  const check = (name: CheckName, status: ReadinessCheck['status'], detail: string) =>
    checks.push({ name, weight: CHECK_WEIGHTS[name], status, earned: CHECK_WEIGHTS[name] * CHECK_CREDIT[status], detail })

  // Boot smoke checks.
  const failedSmoke = (input.smoke ?? []).filter((c) => !c.ok)
  const boot: BootSummary = {
    status: failedSmoke.length > 0 ? 'blocked' : 'pass',
    checks: input.smoke ?? [],
    skipped: input.smoke === null ? 'this report answers a smoke check, which does not re-run the smoke checks' : null,
    algorithm: 'boot-smoke-inject/1',
  }
  if (failedSmoke.length > 0) {
    const list = failedSmoke.map((c) => `${c.path} (${c.status_code ?? 'no status'}: ${c.error})`).join('; ')
    block('boot', `go-live routes failed boot smoke checks: ${list}`)
    check('boot_smoke', 'fail', `${failedSmoke.length} of ${boot.checks.length} admin routes failed`)
    nextSteps.push('fix the failing admin routes (see boot.checks), then request this report again')
  } else if (input.smoke === null) {
    check('boot_smoke', 'pass', 'not re-run inside a smoke check')
  } else {
    check('boot_smoke', 'pass', `${boot.checks.length} admin routes answered 2xx in-process`)
  }

  // Truth (known-answer tests) and the envelope flags.
  const truth = input.truth
  if (!truth) {
    block('truth', `the known-answer tests could not run: ${input.truthError ?? 'no result'}`)
    check('truth', 'fail', 'no truth summary')
  } else {
    const failed = truth.tests.filter((t) => t.status === 'fail')
    const skipped = truth.tests.filter((t) => t.status === 'skipped')
    for (const t of failed) block('truth', `known-answer test failed: ${t.name} (${t.route}): ${t.detail}`)
    for (const t of skipped) advise('truth', `known-answer test skipped: ${t.name}: ${t.detail}`)
    if (truth.envelopes_without_flags > 0) {
      block('envelope', `${truth.envelopes_without_flags} caller envelope(s) were emitted without the contract flags since start`)
    }
    const bad = failed.length > 0 || truth.envelopes_without_flags > 0
    check('truth', bad ? 'fail' : skipped.length > 0 ? 'warn' : 'pass',
      `${truth.passed} passed, ${truth.failed} failed, ${truth.skipped} skipped; ${truth.envelopes_without_flags} envelopes without flags`)
    if (bad) nextSteps.push('fix the operations whose known-answer tests fail, then GET /api/v1/admin/truth/summary?rerun=1')
  }

  // Migrations.
  const m = input.migrations
  if (m.error) {
    block('migrations', `the migration status cannot be read: ${m.error}`)
    check('migrations', 'fail', m.error)
  } else if (!m.migrations_exist) {
    block('migrations', `the migrations directory ${m.migrations_dir} is missing`)
    check('migrations', 'fail', 'no migrations directory')
  } else if (m.pending.length > 0) {
    block('migrations', `${m.pending.length} migration(s) pending: ${m.pending.join(', ')}`)
    check('migrations', 'fail', `${m.pending.length} pending`)
    nextSteps.push('restart the host: pending migrations are applied at startup')
  } else {
    check('migrations', 'pass', `${m.applied.length} applied, none pending`)
  }

  // Environment.
  const env = input.environment
  for (const b of env.blockers) blockers.push(b)
  for (const a of env.advisories) advisories.push(a)
  check('environment', env.blockers.length > 0 ? 'fail' : env.advisories.length > 0 ? 'warn' : 'pass',
    `${env.blockers.length} blocker(s), ${env.advisories.length} advisory(ies)`)
  if (env.blockers.length > 0) nextSteps.push('fix the environment blockers (see environment_summary.blockers)')

  // Dependencies.
  for (const [name, kind, summary] of [
    ['node_dependencies', 'node-dependency', input.node],
    ['python_dependencies', 'python-dependency', input.python],
  ] as const) {
    for (const a of summary.advisories) {
      if (a.critical) block(kind, `${a.module}: ${a.detail}`)
      else advise(kind, `${a.module}: ${a.detail}`)
    }
    check(name, summary.status, `${summary.modules.length} module(s) imported; ${summary.missing_in_environment.length} critical missing, ${summary.advisories.length} advisory(ies)`)
    if (summary.autofix_command) nextSteps.push(summary.autofix_command)
  }
  if (input.python.environment.error && input.python.scanned.files.length > 0) {
    advise('python-dependency', `the Python ops scripts cannot be checked: ${input.python.environment.error}`)
  }

  // Deployment assets.
  const missingAssets = input.startup.deployment_assets.filter((a) => !a.exists)
  for (const a of missingAssets) advise('deployment', `${a.path} is missing (${a.purpose})`)
  check('deployment_assets', missingAssets.length > 0 ? 'warn' : 'pass',
    `${input.startup.deployment_assets.length - missingAssets.length} of ${input.startup.deployment_assets.length} present`)

  const score = Math.round(checks.reduce((sum, c) => sum + c.earned, 0))
  const readiness = blockers.length > 0 ? 'no-go' : advisories.length > 0 ? 'review' : 'go'
  if (readiness === 'review') nextSteps.push('read the advisories: none blocks go-live')
  if (readiness === 'go') nextSteps.push(...input.startup.smoke_tests.slice(-1))
  return {
    summary: {
      status: blockers.length > 0 ? 'blocked' : 'ready',
      boot_status: boot.status,
      readiness_score: score,
      blockers: blockers.length,
      advisories: advisories.length,
      generated_at: input.generatedAt,
      hub: input.versions.hub,
      ncm: input.versions.ncm,
    },
    blockers,
    advisories,
    plan: {
      readiness,
      checks,
      weights: CHECK_WEIGHTS,
      scoring: 'score = round(Σ weight × credit), credit 1 for pass, 0.5 for warn (advisories only), 0 for fail (a blocker)',
      next_steps: [...new Set(nextSteps)],
    },
    dependency_summary: input.python,
    node_dependency_summary: input.node,
    migration_summary: input.migrations,
    startup_summary: input.startup,
    environment_summary: input.environment,
    boot,
    truth: truth
      ? { passed: truth.passed, failed: truth.failed, skipped: truth.skipped, ran_at: truth.ran_at, envelopes_without_flags: truth.envelopes_without_flags }
      : null,
    algorithms: [...new Set([READINESS_ALGORITHM, boot.algorithm, ...input.algorithms])],
  }
}
