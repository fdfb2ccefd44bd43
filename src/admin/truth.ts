// The truth summary: known-answer tests run through the real routes (app.inject), per-operation provenance, and the
// count of envelopes ever emitted without the contract flags.
import type { FastifyInstance } from 'fastify'
import { internalHeaders } from '../access/internal.js'
import { inTurns } from '../sched/turns.js'
import type { TruthSummary, TruthTestResult } from './schemas.js'
import { KNOWN_ANSWER_CASES, type KnownAnswerCase } from './truth-cases.js'

export const TRUTH_ALGORITHM = 'known-answer-inject/1'
export const SANDBOX_NOTE = 'a throwaway host: the same routes over an in-memory store of its own, so no self-test row reaches the user\'s data'

export type { TruthSummary, TruthTestResult } from './schemas.js'

export interface TruthRunner {
  /** The last run, or a run now when none was made yet. */
  latest(): Promise<TruthSummary>
  /** Runs every test again (concurrent callers share one run). */
  run(trigger: TruthSummary['trigger']): Promise<TruthSummary>
}

/** What the truth summary reads of each caller operation (the host hands over its registry's operations). */
export interface OperationFacts {
  name: string
  method: string
  path: string
  lobe: string
  provenance: readonly string[]
  sources?: readonly string[] | undefined
}

/** A self-test host for one run: the runner releases (closes) it when the run ends. */
export interface SandboxLease {
  host: FastifyInstance
  release(): Promise<void>
}

export interface TruthOptions {
  operations: readonly OperationFacts[]
  /** Sent as the bearer so operations that need a scope admit the self-test. */
  adminToken: string | null
  now: () => number
  envelopesWithoutFlags: () => number
  /**
   * The throwaway host (same routes, in-memory store) the tests run in: they import a dataset and store a backtest,
   * and none of that may land in the user's data. Without it the tests run against `app`. Built for each run and
   * closed after it: a second host's routes and compiled serializers are tens of MiB that a rare rerun does not need kept.
   */
  sandbox?: () => Promise<SandboxLease>
  cases?: readonly KnownAnswerCase[]
}

export function createTruthRunner(app: FastifyInstance, options: TruthOptions): TruthRunner {
  const cases = options.cases ?? KNOWN_ANSWER_CASES
  let last: TruthSummary | null = null
  let inFlight: Promise<TruthSummary> | null = null

  const runOnce = async (trigger: TruthSummary['trigger']): Promise<TruthSummary> => {
    const started = performance.now()
    const ranAt = new Date(options.now()).toISOString()
    const tests: TruthTestResult[] = []
    const sandbox = options.sandbox ? await options.sandbox() : null
    try {
      // Injected requests never wait for I/O: without a turn between cases the whole run (each case compiling its
      // route's serializer on first use) would hold the event loop while clients wait.
      for await (const c of inTurns(cases)) {
        let result = await runCase(sandbox?.host ?? app, c, options)
        // Occupied is a moment, not an answer (a stall of the loop, e.g. the self-test host compiling a route on first
        // use): once the host is live-bound again, the case runs once more.
        if (result.status === 'skipped' && result.status_code === 503 && app.hasDecorator('admission')) {
          for (let waited = 0; app.admission.state() !== 'live-bound' && waited < 3000; waited += 100) await sleep(100)
          result = await runCase(sandbox?.host ?? app, c, options)
        }
        tests.push(result)
      }
    } finally {
      await sandbox?.release()
    }
    const summary: TruthSummary = {
      algorithm: TRUTH_ALGORITHM,
      ran_at: ranAt,
      trigger,
      ms: round1(performance.now() - started),
      passed: tests.filter((t) => t.status === 'pass').length,
      failed: tests.filter((t) => t.status === 'fail').length,
      skipped: tests.filter((t) => t.status === 'skipped').length,
      sandbox: sandbox ? SANDBOX_NOTE : 'this host (itself a throwaway self-test host)',
      tests,
      provenance: options.operations.map((op) => ({
        operation: op.name,
        path: `/api/v1${op.path === '/' ? '' : op.path}`,
        lobe: op.lobe,
        provenance: [...op.provenance],
        sources: [...(op.sources ?? [])],
      })),
      envelopes_without_flags: options.envelopesWithoutFlags(),
    }
    last = summary
    return summary
  }

  const run = (trigger: TruthSummary['trigger']) => {
    inFlight ??= runOnce(trigger).finally(() => {
      inFlight = null
    })
    return inFlight
  }

  return {
    run,
    async latest() {
      const summary = last ?? (await (inFlight ?? run('first-request')))
      // The flag counter is live even when the tests are not re-run.
      return { ...summary, envelopes_without_flags: options.envelopesWithoutFlags() }
    },
  }
}

async function runCase(app: FastifyInstance, c: KnownAnswerCase, options: TruthOptions): Promise<TruthTestResult> {
  const base = { name: c.name, route: `${c.method} ${c.url}`, source: c.source }
  const path = c.url.startsWith('/api/v1/') ? c.url.slice('/api/v1'.length) : null
  const op = path ? options.operations.find((o) => o.path === path && o.method === c.method) : undefined
  const needed = [{ method: c.method, url: c.url }, ...(c.prepare ?? [])]
  const unrouted = needed.find((r) => !app.routeTable.some((t) => t.method === r.method && t.url === r.url))
  if (unrouted) {
    return { ...base, operation: op?.name ?? null, status: 'skipped', ms: null, status_code: null, detail: `${unrouted.method} ${unrouted.url} is not a route of this host` }
  }
  // Marked internal: a self-test never spends a client's rate-limit quota.
  const headers: Record<string, string> = { accept: 'application/json', ...internalHeaders({ smoke: false }) }
  if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`
  const enveloped = c.envelope ?? true
  const started = performance.now()
  const result = (status: TruthTestResult['status'], statusCode: number | null, detail: string | null): TruthTestResult =>
    ({ ...base, operation: op?.name ?? null, status, ms: round1(performance.now() - started), status_code: statusCode, detail })
  try {
    for (const step of c.prepare ?? []) {
      const res = await app.inject({ method: step.method, url: step.url, headers, payload: step.body as object })
      // As for the case itself: occupied while preparing says nothing about the answer (the run retries it once).
      if (res.statusCode === 503) return result('skipped', res.statusCode, `not run: occupied while preparing with ${step.method} ${step.url}: ${res.body.slice(0, 200)}`)
      if (res.statusCode < 200 || res.statusCode >= 300) return result('fail', res.statusCode, `preparing with ${step.method} ${step.url} failed: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`)
    }
    const res = await app.inject({ method: c.method, url: c.url, headers, ...(c.method === 'POST' ? { payload: c.body as object } : {}) })
    let body: any
    try {
      body = JSON.parse(res.body)
    } catch {
      return result('fail', res.statusCode, 'the answer is not JSON')
    }
    // Occupied or rate limited says nothing about the answer: the test could not run now (GET …?rerun=1 runs it again).
    const busy = enveloped ? body?.refuse?.code : res.statusCode === 503 || res.statusCode === 429 ? 'occupied' : null
    if (busy === 'occupied' || busy === 'rate_limited') {
      return result('skipped', res.statusCode, `not run: ${busy}: ${body?.refuse?.reason ?? body?.detail ?? `HTTP ${res.statusCode}`}`)
    }
    if (res.statusCode !== 200 || (enveloped && body?.ok !== true)) {
      const why = body?.refuse ? `${body.refuse.code}: ${body.refuse.reason}` : body?.detail ?? `HTTP ${res.statusCode}`
      return result('fail', res.statusCode, `refused or failed: ${why}`)
    }
    const problem = c.check(enveloped ? body.data : body)
    return result(problem ? 'fail' : 'pass', res.statusCode, problem)
  } catch (err) {
    return result('fail', null, `threw: ${(err as Error).message}`)
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
