// The go-live readiness report (seed §2.3, SPEC §4.1) as a pure function of its measured inputs: required blockers,
// advisories, the weighted score and the plan. Collecting the inputs (smoke checks, analyses, the store) is collect.ts's
// job; the shape is src/admin/schemas.ts.
import type { DependencySummary } from '../analysers/dependencies/index.js'
import type {
  Advisory,
  BootSummary,
  ContractDependencySummary,
  EnvironmentSummary,
  MigrationSummary,
  Notice,
  ReadinessCheck,
  ReadinessReport,
  RequiredBlocker,
  RunRetentionSummary,
  JobRetentionSummary,
  SmokeCheck,
  StartupSummary,
} from './schemas.js'
import type { TruthSummary } from './schemas.js'
import type { StoreStatus } from '../store/status.js'
import type { ScaleOut } from '../plugins/scale-out.js'

export type { ReadinessReport } from './schemas.js'

export const READINESS_ALGORITHM = 'readiness-weighted/1'
export const BOOT_ALGORITHM = 'boot-smoke-inject/1'

/**
 * Weights of the checks in the score (sum 100). A check that passes earns its weight, one with advisories only earns
 * half, one with a blocker earns nothing. The boot smoke checks weigh most: a host whose own admin routes fail is not
 * operable; then correctness (truth), then the data (migrations), then configuration and dependencies, then resident
 * memory against its budget (over it is a warning: the host still serves).
 */
export const CHECK_WEIGHTS = {
  boot_smoke: 30,
  truth: 20,
  migrations: 15,
  environment: 10,
  node_dependencies: 10,
  python_dependencies: 5,
  deployment_assets: 5,
  memory: 5,
} as const
export type CheckName = keyof typeof CHECK_WEIGHTS

export const CHECK_CREDIT = { pass: 1, warn: 0.5, fail: 0 } as const

/** Advisory kinds of the two analyses: `dependency` (seed §2.3) for the Python ops scripts, ours for package.json. */
export const DEPENDENCY_KIND = { python: 'dependency', node: 'node-dependency' } as const

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
  store: StoreStatus
  startup: StartupSummary
  environment: EnvironmentSummary
  algorithms: string[]
  runRetention: RunRetentionSummary
  jobRetention: JobRetentionSummary
  scaleOut: ScaleOut
  /** Resident memory now and MEMORY_BUDGET_MIB, in bytes. */
  memory: { rss_bytes: number; budget_bytes: number }
}

/** An analysis in the seed's dependency_summary shape, with the analysis' own detail as additions. */
export function contractDependencySummary(s: DependencySummary): ContractDependencySummary {
  const packageOf = (module: string) => s.modules.find((m) => m.module === module)?.package ?? module
  const ref = (module: string) => ({ module, recommended_package: packageOf(module) })
  return {
    requirements_path: s.manifest.path,
    // Node entries carry their package.json field; a requirements line is name and specifier run together.
    declared_packages: s.declared.map((d) => (d.scope ? `${d.name}@${d.specifier}` : `${d.name}${d.specifier}`)),
    referenced_external_modules: s.modules.map((m) => m.module),
    missing_in_requirements: s.missing_in_requirements.map(ref),
    missing_in_environment: s.missing_in_environment.map((m) => ({ ...ref(m), critical: true })),
    advisory_missing_in_environment: s.advisory_missing_in_environment.map((m) => ({ ...ref(m), critical: false })),
    autofix_packages: s.autofix_packages,
    algorithms: [s.algorithm, ...(s.sources.normalisation === 'PEP 503' ? ['pep503-normalise/1'] : [])],
    status: s.status,
    files_read: s.manifest.files_read,
    scanned: s.scanned,
    modules: s.modules,
    declared_not_imported: s.declared_not_imported,
    autofix_command: s.autofix_command,
    findings: s.advisories.map(({ module, recommended_package, critical, findings }) => ({ module, recommended_package, critical, findings })),
    runtime: s.runtime ?? null,
    environment: s.environment,
    sources: s.sources,
  }
}

/**
 * The seed's advisories of one analysis: each module missing from the manifest (no `critical`), each module missing
 * from the environment (`critical` false or true) — so a module may appear twice — and each unreadable `-r` include
 * (`_r <path>`). What has no package to recommend (a declared-but-unused entry, a stdlib name, a syntax problem) is a
 * notice; a critical finding is also a required blocker.
 */
export function dependencyFindings(kind: string, s: ContractDependencySummary): { blockers: RequiredBlocker[]; advisories: Advisory[]; notices: Notice[] } {
  const advisories: Advisory[] = [
    ...s.missing_in_requirements.map((detail) => ({ kind, detail })),
    ...s.advisory_missing_in_environment.map((detail) => ({ kind, detail })),
    ...s.missing_in_environment.map((detail) => ({ kind, detail })),
  ]
  const covered = new Set(advisories.map((a) => a.detail.module))
  const blockers: RequiredBlocker[] = []
  const notices: Notice[] = []
  for (const f of s.findings) {
    const text = `${f.module}: ${f.findings.join('; ')}`
    if (f.critical) blockers.push({ kind, detail: text })
    if (covered.has(f.module)) continue
    if (f.module.startsWith('_r ') && f.recommended_package) advisories.push({ kind, detail: { module: f.module, recommended_package: f.recommended_package } })
    else if (!f.critical) notices.push({ kind, detail: text })
  }
  return { blockers, advisories, notices }
}

/** What the checks add up: blockers, advisories, notices, scored checks and next steps, in the order found. */
interface Tally {
  blockers: RequiredBlocker[]
  advisories: Advisory[]
  notices: Notice[]
  checks: ReadinessCheck[]
  nextSteps: string[]
  block(kind: string, detail: string): void
  notice(kind: string, detail: string): void
  check(name: CheckName, status: ReadinessCheck['status'], detail: string): void
}

function createTally(): Tally {
  const blockers: RequiredBlocker[] = []
  const notices: Notice[] = []
  const checks: ReadinessCheck[] = []
  return {
    blockers,
    advisories: [],
    notices,
    checks,
    nextSteps: [],
    block: (kind, detail) => { blockers.push({ kind, detail }) },
    notice: (kind, detail) => { notices.push({ kind, detail }) },
    check: (name, status, detail) => {
      checks.push({ name, weight: CHECK_WEIGHTS[name], status, earned: CHECK_WEIGHTS[name] * CHECK_CREDIT[status], detail })
    },
  }
}

export function buildReadinessReport(input: ReadinessInputs): ReadinessReport {
  const t = createTally()
  const { blockers, advisories, notices, checks, nextSteps } = t
  const boot = judgeBoot(t, input)
  judgeTruth(t, input)
  judgeMigrations(t, input.migrations, input.store)
  judgeEnvironment(t, input.environment)
  const { python, node } = judgeDependencies(t, input)
  judgeDeploymentAssets(t, input.startup)
  judgeMemory(t, input.memory)
  judgeScaleOut(t, input.scaleOut)
  const truth = input.truth
  const m = input.migrations
  const env = input.environment

  const score = Math.round(checks.reduce((sum, c) => sum + c.earned, 0))
  const readiness = blockers.length > 0 ? 'no-go' : advisories.length + notices.length > 0 ? 'review' : 'go'
  if (readiness === 'review') nextSteps.push('read the advisories and notices: none blocks go-live')
  if (readiness === 'go') nextSteps.push(input.startup.smoke_script)
  const algorithms = [...new Set([READINESS_ALGORITHM, BOOT_ALGORITHM, ...input.algorithms])]
  const missingModules = (s: ContractDependencySummary) =>
    new Set([...s.missing_in_requirements, ...s.missing_in_environment, ...s.advisory_missing_in_environment].map((r) => r.module)).size
  return {
    summary: {
      generated_at: input.generatedAt,
      status: blockers.length > 0 ? 'blocked' : 'ready',
      readiness_score: score,
      required_blocker_count: blockers.length,
      advisory_count: advisories.length,
      boot_status: boot.status,
      missing_dependency_count: missingModules(python) + missingModules(node),
      autofix_package_count: python.autofix_packages.length + node.autofix_packages.length,
      algorithms,
      notice_count: notices.length,
      hub: input.versions.hub,
      ncm: input.versions.ncm,
    },
    blockers: {
      generated_at: input.generatedAt,
      required_blockers: blockers,
      advisories,
      boot,
      algorithm: READINESS_ALGORITHM,
      notices,
    },
    plan: {
      generated_at: input.generatedAt,
      readiness,
      required_blockers: blockers,
      advisories,
      dependency_summary: python,
      environment_summary: env,
      migration_summary: m,
      startup_summary: input.startup,
      algorithms,
      checks,
      weights: CHECK_WEIGHTS,
      scoring: 'score = round(Σ weight × credit), credit 1 for pass, 0.5 for warn (advisories only), 0 for fail (a blocker)',
      next_steps: [...new Set(nextSteps)],
    },
    dependency_summary: python,
    node_dependency_summary: node,
    truth: truth
      ? { passed: truth.passed, failed: truth.failed, skipped: truth.skipped, ran_at: truth.ran_at, envelopes_without_flags: truth.envelopes_without_flags }
      : null,
    run_retention: input.runRetention,
    job_retention: input.jobRetention,
    store: input.store,
    scale_out: input.scaleOut,
  }
}

/** Boot smoke checks: each admin route answered in-process (not re-run inside a smoke check). */
function judgeBoot(t: Tally, input: ReadinessInputs): BootSummary {
  const { block, check, nextSteps } = t
  const failedSmoke = (input.smoke ?? []).filter((c) => !c.ok)
  const boot: BootSummary = {
    source: input.smoke === null ? 'none' : 'inject',
    status: failedSmoke.length > 0 ? 'blocked' : 'pass',
    checks: input.smoke ?? [],
    skipped: input.smoke === null ? 'this report answers a smoke check, which does not re-run the smoke checks' : null,
    algorithm: BOOT_ALGORITHM,
  }
  if (failedSmoke.length > 0) {
    const list = failedSmoke.map((c) => `${c.path} (${c.status_code ?? 'no status'}: ${c.error})`).join('; ')
    block('boot', `go-live routes failed boot smoke checks: ${list}`)
    check('boot_smoke', 'fail', `${failedSmoke.length} of ${boot.checks.length} admin routes failed`)
    nextSteps.push('fix the failing admin routes (see blockers.boot.checks), then request this report again')
  } else if (input.smoke === null) {
    check('boot_smoke', 'pass', 'not re-run inside a smoke check')
  } else {
    check('boot_smoke', 'pass', `${boot.checks.length} admin routes answered 2xx in-process`)
  }
  return boot
}

/** Truth (known-answer tests) and the envelope flags. */
function judgeTruth(t: Tally, input: ReadinessInputs): void {
  const { block, notice, check, nextSteps } = t
  const truth = input.truth
  if (!truth) {
    block('truth', `the known-answer tests could not run: ${input.truthError ?? 'no result'}`)
    check('truth', 'fail', 'no truth summary')
  } else {
    const failed = truth.tests.filter((test) => test.status === 'fail')
    const skipped = truth.tests.filter((test) => test.status === 'skipped')
    for (const f of failed) block('truth', `known-answer test failed: ${f.name} (${f.route}): ${f.detail}`)
    for (const k of skipped) notice('truth', `known-answer test skipped: ${k.name}: ${k.detail}`)
    if (truth.envelopes_without_flags > 0) {
      block('envelope', `${truth.envelopes_without_flags} caller envelope(s) were emitted without the contract flags since start`)
    }
    const bad = failed.length > 0 || truth.envelopes_without_flags > 0
    check('truth', bad ? 'fail' : skipped.length > 0 ? 'warn' : 'pass',
      `${truth.passed} passed, ${truth.failed} failed, ${truth.skipped} skipped; ${truth.envelopes_without_flags} envelopes without flags`)
    if (bad) nextSteps.push('fix the operations whose known-answer tests fail, then GET /api/v1/admin/truth/summary?rerun=1')
  }
}

function judgeMigrations(t: Tally, m: MigrationSummary, store: StoreStatus): void {
  const { block, check, nextSteps } = t
  if (!store.ok) {
    block('migrations', `the ${store.backend} database at ${store.location} does not answer: ${store.error}`)
    check('migrations', 'fail', `${store.backend} does not answer`)
  } else if (m.error) {
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
}

function judgeEnvironment(t: Tally, env: EnvironmentSummary): void {
  const { blockers, notices, check, nextSteps } = t
  blockers.push(...env.required_blockers)
  notices.push(...env.advisories)
  check('environment', env.required_blockers.length > 0 ? 'fail' : env.advisories.length > 0 ? 'warn' : 'pass',
    `${env.required_blockers.length} blocker(s), ${env.advisories.length} advisory(ies)`)
  if (env.required_blockers.length > 0) nextSteps.push('fix the environment blockers (see plan.environment_summary.required_blockers)')
}

/** Both dependency analyses (package.json, the Python ops scripts) in the seed's shape, with their findings tallied. */
/** One contract form per analysis: reports rebuilt from the same cached analysis share it (and its written bytes, api.ts). */
const contracts = new WeakMap<DependencySummary, ContractDependencySummary>()

function contractOf(summary: DependencySummary): ContractDependencySummary {
  let contract = contracts.get(summary)
  if (!contract) contracts.set(summary, (contract = contractDependencySummary(summary)))
  return contract
}

function judgeDependencies(t: Tally, input: ReadinessInputs): { python: ContractDependencySummary; node: ContractDependencySummary } {
  const { blockers, advisories, notices, notice, check, nextSteps } = t
  const python = contractOf(input.python)
  const node = contractOf(input.node)
  for (const [name, kind, summary, raw] of [
    ['node_dependencies', DEPENDENCY_KIND.node, node, input.node],
    ['python_dependencies', DEPENDENCY_KIND.python, python, input.python],
  ] as const) {
    const found = dependencyFindings(kind, summary)
    blockers.push(...found.blockers)
    advisories.push(...found.advisories)
    notices.push(...found.notices)
    check(name, raw.status, `${raw.modules.length} module(s) imported; ${raw.missing_in_environment.length} critical missing, ${raw.advisories.length} finding(s)`)
    if (raw.autofix_command) nextSteps.push(raw.autofix_command)
  }
  if (input.python.environment.error && input.python.scanned.files.length > 0) {
    notice(DEPENDENCY_KIND.python, `the Python ops scripts cannot be checked: ${input.python.environment.error}`)
  }
  return { python, node }
}

/** The shared Redis (REDIS_URL): unreachable, jobs cannot be dispatched and each replica limits alone. Notices only. */
function judgeScaleOut(t: Tally, scaleOut: ScaleOut): void {
  const { redis, rate_limit: limit } = scaleOut
  if (redis && !redis.reachable) notice(t, `Redis at ${redis.url} is unreachable (${redis.error}): jobs cannot be dispatched; the rate limit counts per replica`)
  else if (limit.degraded) notice(t, `the rate limit counts per replica since ${limit.degraded.since}: ${limit.degraded.reason}`)
}

const notice = (t: Tally, detail: string) => t.notice('scale-out', detail)

function judgeDeploymentAssets(t: Tally, startup: StartupSummary): void {
  const { notice, check } = t
  const assets = startup.asset_checks
  const missingAssets = assets.filter((a) => !a.exists)
  for (const a of missingAssets) notice('deployment', `${a.path} is missing (${a.purpose})`)
  check('deployment_assets', missingAssets.length > 0 ? 'warn' : 'pass', `${assets.length - missingAssets.length} of ${assets.length} present`)
}

/** Resident memory over MEMORY_BUDGET_MIB: a notice and half the check's weight; the host still serves. */
function judgeMemory(t: Tally, { rss_bytes, budget_bytes }: ReadinessInputs['memory']): void {
  const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`
  if (rss_bytes > budget_bytes) {
    t.notice('memory', `RSS ${mib(rss_bytes)} is over MEMORY_BUDGET_MIB (${mib(budget_bytes)}): raise the budget or see what holds ` +
      'the memory in /api/v1/admin/command-post/summary (memory_budget)')
    t.check('memory', 'warn', `RSS ${mib(rss_bytes)} over the budget of ${mib(budget_bytes)}`)
  } else {
    t.check('memory', 'pass', `RSS ${mib(rss_bytes)} within the budget of ${mib(budget_bytes)}`)
  }
}
