// The payloads of the three admin JSON routes as zod schemas: the go-live readiness report (seed §2.3, field by field,
// plus our additions), the truth summary and the command-post summary. The routes use them as response schemas (so
// /docs/json documents them and the serializer sends exactly these fields) and the tests parse answers with them.
import { z } from 'zod'
import { storeStatusSchema } from '../store/status.js'
import { scaleOutSchema } from '../plugins/scale-out.js'

const isoTime = z.string().describe('ISO 8601 timestamp with offset')

// --- blockers and advisories (seed §2.3 "blockers", "advisory") ----------------------------------------------------

export const requiredBlockerSchema = z.object({
  kind: z.string().describe('boot, truth, envelope, migrations, environment, dependency, node-dependency'),
  detail: z.string(),
})

/** The detail of a dependency advisory: the module and what to install; `critical` on environment findings. */
export const dependencyDetailSchema = z.object({
  module: z.string().describe('importable module name; `_r <path>` for a requirements include line'),
  recommended_package: z.string().describe('install requirement (`-r <path>` for an include line)'),
  critical: z.boolean().optional().describe('present on environment findings: true when a missing module stops something from running'),
})

export const advisorySchema = z.object({
  kind: z.string().describe('dependency (Python ops scripts) or node-dependency (package.json)'),
  detail: dependencyDetailSchema,
})

/** An advisory whose subject is not a module (environment, truth, deployment, a requirements file problem). */
export const noticeSchema = z.object({ kind: z.string(), detail: z.string() })

// --- dependency_summary ------------------------------------------------------------------------------------------

const moduleRefSchema = z.object({ module: z.string(), recommended_package: z.string() })
const moduleRefCriticalSchema = moduleRefSchema.extend({ critical: z.boolean() })

export const dependencySummarySchema = z.object({
  requirements_path: z.string().describe('the manifest, relative to the repo root'),
  declared_packages: z.array(z.string()).describe('entries of the manifest (name and specifier as written)'),
  referenced_external_modules: z.array(z.string()).describe('modules the code imports that are neither stdlib nor local'),
  missing_in_requirements: z.array(moduleRefSchema),
  missing_in_environment: z.array(moduleRefCriticalSchema).describe('missing from the environment and critical'),
  advisory_missing_in_environment: z.array(moduleRefCriticalSchema),
  autofix_packages: z.array(z.string()),
  algorithms: z.array(z.string()),
  // additions
  status: z.enum(['pass', 'warn', 'fail']),
  files_read: z.array(z.string()),
  scanned: z.object({ files: z.array(z.string()), truncated: z.boolean() }),
  modules: z.array(z.object({
    module: z.string(),
    package: z.string(),
    mapping: z.string(),
    declared: z.boolean(),
    importable: z.boolean().nullable(),
    critical: z.boolean(),
    sites: z.array(z.object({ file: z.string(), line: z.number().int() })),
  })),
  declared_not_imported: z.array(z.string()),
  autofix_command: z.string().nullable(),
  findings: z.array(z.object({
    module: z.string(),
    recommended_package: z.string().nullable(),
    critical: z.boolean(),
    findings: z.array(z.string()),
  })).describe('every finding about a module, one entry per module'),
  runtime: z.object({ entry_points: z.array(z.string()), reachable_files: z.number().int() }).nullable(),
  environment: z.object({ checked: z.boolean(), interpreter: z.string().nullable(), error: z.string().nullable() }),
  sources: z.record(z.string(), z.string()),
})

// --- plan parts --------------------------------------------------------------------------------------------------

export const environmentSummarySchema = z.object({
  aliases: z.array(z.object({ alias: z.string(), canonical: z.string(), meaning: z.string(), used: z.boolean() })),
  required_blockers: z.array(requiredBlockerSchema),
  advisories: z.array(noticeSchema),
  algorithm: z.string(),
  // additions
  node_env: z.string(),
  host: z.string(),
  port: z.number().int(),
  admin_token: z.enum(['set', 'unset']),
  data_dir: z.string(),
})

export const migrationSummarySchema = z.object({
  alembic_ini: z.string(),
  alembic_exists: z.boolean(),
  migrations_dir: z.string(),
  migrations_exist: z.boolean(),
  database_path: z.string(),
  database_exists: z.boolean(),
  commands: z.array(z.string()),
  algorithm: z.string(),
  // additions
  applied: z.array(z.object({ name: z.string(), applied_at: z.string() })),
  pending: z.array(z.string()),
  backend: z.enum(['sqlite', 'postgres']).describe('the database the migrations apply to: the SQLite file, or PostgreSQL when DATABASE_URL is set'),
  error: z.string().nullable(),
})

export const deploymentAssetsSchema = z.object({
  compose_file: z.string(),
  reverse_proxy_config: z.string(),
  service_unit_dir: z.string(),
})

export const startupSummarySchema = z.object({
  commands: z.array(z.string()).describe('setup and start steps, in order'),
  smoke_tests: z.array(z.string()).describe('one request per admin route'),
  deployment_assets: deploymentAssetsSchema,
  algorithm: z.string(),
  // additions
  smoke_script: z.string(),
  asset_checks: z.array(z.object({ path: z.string(), exists: z.boolean(), purpose: z.string() })),
})

export const smokeCheckSchema = z.object({
  path: z.string(),
  status_code: z.number().int().nullable(),
  ms: z.number(),
  ok: z.boolean(),
  error: z.string().nullable(),
})

export const bootSchema = z.object({
  source: z.enum(['inject', 'none']).describe('inject: each admin route requested in-process for this report; none: not run (this report answers a smoke check)'),
  status: z.enum(['pass', 'blocked']),
  checks: z.array(smokeCheckSchema),
  // additions
  skipped: z.string().nullable(),
  algorithm: z.string(),
})

export const readinessCheckSchema = z.object({
  name: z.string(),
  weight: z.number(),
  status: z.enum(['pass', 'warn', 'fail']),
  earned: z.number(),
  detail: z.string(),
})

// --- the report --------------------------------------------------------------------------------------------------

/** An addition: how stored trading runs are bounded (issue #13) and what the store holds now. */
export const runRetentionSchema = z.object({
  max_runs: z.number().int().describe('RUN_RETENTION_MAX_RUNS; 0 = no count limit'),
  max_age_days: z.number().int().describe('RUN_RETENTION_MAX_AGE_DAYS; 0 = no age limit'),
  stored_runs: z.number().int().nullable(),
  oldest_run_at: z.string().nullable(),
  policy: z.string(),
  error: z.string().nullable(),
})
export type RunRetentionSummary = z.infer<typeof runRetentionSchema>

/** An addition: how stored jobs (their inputs and answers) are bounded (issue #25) and what the store holds now. */
export const jobRetentionSchema = z.object({
  max_jobs: z.number().int().describe('JOB_RETENTION_MAX_JOBS: finished jobs whose input and answer are kept; 0 = no count limit'),
  max_age_h: z.number().describe('JOB_RETENTION_H: a finished job is purged this long after it ended'),
  kept_jobs: z.number().int().nullable().describe('jobs whose input (and answer) are kept now'),
  oldest_job_at: z.string().nullable(),
  policy: z.string(),
  error: z.string().nullable(),
})
export type JobRetentionSummary = z.infer<typeof jobRetentionSchema>

export const readinessReportSchema = z.object({
  summary: z.object({
    generated_at: isoTime,
    status: z.enum(['ready', 'blocked']),
    readiness_score: z.number().int().min(0).max(100),
    required_blocker_count: z.number().int(),
    advisory_count: z.number().int().describe('length of blockers.advisories'),
    boot_status: z.enum(['pass', 'blocked']),
    missing_dependency_count: z.number().int().describe('distinct modules missing from a manifest or the environment (Python and Node)'),
    autofix_package_count: z.number().int().describe('packages to install (Python and Node)'),
    algorithms: z.array(z.string()),
    // additions
    notice_count: z.number().int().describe('length of blockers.notices'),
    hub: z.string(),
    ncm: z.string(),
  }),
  blockers: z.object({
    generated_at: isoTime,
    required_blockers: z.array(requiredBlockerSchema),
    advisories: z.array(advisorySchema),
    boot: bootSchema,
    algorithm: z.string(),
    // additions
    notices: z.array(noticeSchema).describe('advisories whose subject is not a module: environment, truth, deployment, manifest problems'),
  }),
  plan: z.object({
    generated_at: isoTime,
    readiness: z.enum(['go', 'review', 'no-go']),
    required_blockers: z.array(requiredBlockerSchema),
    advisories: z.array(advisorySchema),
    dependency_summary: dependencySummarySchema,
    environment_summary: environmentSummarySchema,
    migration_summary: migrationSummarySchema,
    startup_summary: startupSummarySchema,
    algorithms: z.array(z.string()),
    // additions
    checks: z.array(readinessCheckSchema),
    weights: z.record(z.string(), z.number()),
    scoring: z.string(),
    next_steps: z.array(z.string()),
  }),
  dependency_summary: dependencySummarySchema,
  // additions
  node_dependency_summary: dependencySummarySchema,
  truth: z.object({
    passed: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    ran_at: z.string().nullable(),
    envelopes_without_flags: z.number().int(),
  }).nullable(),
  run_retention: runRetentionSchema,
  job_retention: jobRetentionSchema,
  store: storeStatusSchema.describe('the database this host runs on, checked when the report was built'),
  scale_out: scaleOutSchema,
})

export type ReadinessReport = z.infer<typeof readinessReportSchema>
export type RequiredBlocker = z.infer<typeof requiredBlockerSchema>
export type Advisory = z.infer<typeof advisorySchema>
export type Notice = z.infer<typeof noticeSchema>
export type ContractDependencySummary = z.infer<typeof dependencySummarySchema>
export type EnvironmentSummary = z.infer<typeof environmentSummarySchema>
export type MigrationSummary = z.infer<typeof migrationSummarySchema>
export type StartupSummary = z.infer<typeof startupSummarySchema>
export type SmokeCheck = z.infer<typeof smokeCheckSchema>
export type BootSummary = z.infer<typeof bootSchema>
export type ReadinessCheck = z.infer<typeof readinessCheckSchema>

// --- truth summary -----------------------------------------------------------------------------------------------

export const truthSummarySchema = z.object({
  algorithm: z.string(),
  ran_at: isoTime,
  trigger: z.enum(['start', 'rerun', 'first-request']),
  ms: z.number(),
  passed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  sandbox: z.string().describe('where the tests ran: a throwaway host, so they leave no row in the user\'s data'),
  tests: z.array(z.object({
    name: z.string(),
    route: z.string(),
    operation: z.string().nullable(),
    source: z.string(),
    status: z.enum(['pass', 'fail', 'skipped']),
    ms: z.number().nullable(),
    status_code: z.number().int().nullable(),
    detail: z.string().nullable(),
  })),
  provenance: z.array(z.object({
    operation: z.string(),
    path: z.string(),
    lobe: z.string(),
    provenance: z.array(z.string()),
    sources: z.array(z.string()),
  })),
  envelopes_without_flags: z.number().int(),
})
export type TruthSummary = z.infer<typeof truthSummarySchema>
export type TruthTestResult = TruthSummary['tests'][number]

// --- command-post summary ----------------------------------------------------------------------------------------

const latencySchema = z.object({
  count: z.number().int(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  p99_ms: z.number().nullable(),
  max_ms: z.number().nullable(),
  mean_ms: z.number().nullable(),
})
const surfaceSchema = z.enum(['caller', 'trading', 'admin', 'docs'])
const surfaceTallySchema = z.object({
  count: z.number().int(),
  server_errors: z.number().int().describe('5xx answers that are faults (not the 501/503 refusals by design)'),
  refusals: z.number().int().describe('refusals by design: every 4xx, 501 token_completion_unavailable, 503 occupied/timeout'),
  latency: latencySchema,
})

export const commandPostSchema = z.object({
  started_at: isoTime,
  uptime_s: z.number(),
  occupancy: z.enum(['live-bound', 'shedding', 'draining']),
  requests: z.object({
    total: z.number().int(),
    by_surface: z.object({ caller: surfaceTallySchema, trading: surfaceTallySchema, admin: surfaceTallySchema, docs: surfaceTallySchema }),
    by_status: z.record(z.string(), z.number().int()),
    by_route: z.array(z.object({
      surface: surfaceSchema,
      method: z.string(),
      route: z.string(),
      status: z.number().int(),
      count: z.number().int(),
      mean_ms: z.number(),
      max_ms: z.number(),
    })),
  }),
  latency: latencySchema.extend({ histogram: z.string() }),
  error_rate: z.number().nullable().describe('server faults (5xx except the 501/503 refusals) over all answers'),
  refusal_rate: z.number().nullable().describe('refusals by design (4xx, 501, 503) over all answers'),
  event_loop: z.object({ delay_ms: z.number(), utilization: z.number() }),
  memory: z.object({
    rss_bytes: z.number(),
    heap_used_bytes: z.number(),
    heap_total_bytes: z.number(),
    external_bytes: z.number(),
    array_buffers_bytes: z.number(),
  }),
  memory_budget: z.object({
    budget_bytes: z.number().describe('MEMORY_BUDGET_MIB in bytes'),
    rss_bytes: z.number(),
    remaining_bytes: z.number().describe('budget − RSS; negative when over'),
    components: z.array(z.object({ component: z.string(), bytes: z.number().nullable(), note: z.string() })),
    heap_spaces: z.array(z.object({ space: z.string(), used_bytes: z.number(), committed_bytes: z.number() })),
  }).describe('resident memory against the budget, by component'),
  mill: z.object({
    threads: z.number().int(),
    max_queue: z.number().int(),
    queue_size: z.number().int(),
    running: z.number().int(),
    completed: z.number().int(),
    utilization: z.number(),
    timeouts: z.number().int(),
    rejected_full: z.number().int(),
  }),
  database: z.object({
    backend: z.enum(['sqlite', 'postgres']),
    file_bytes: z.number().nullable(),
    wal_bytes: z.number().nullable(),
    pool: storeStatusSchema.shape.pool,
    note: z.string().nullable(),
  }),
  notes: z.array(z.string()),
})
