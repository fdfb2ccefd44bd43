// Every door × every principal against the access policy (src/access/policy.ts). The doors are generated: every route
// of the host's route table, every registry operation through /run and /cli, every MCP tool the server lists and
// every resource it reads. Each is tried by anonymous, a grant of each scope alone and the admin; a door that lets a
// principal through (anything but 401/403, or 404 for an owned thing that exists) must be one the policy allows, and
// one the policy allows must let it through. Heavy work is answered `occupied` past the door (admission forced to
// shedding), so no door runs what it guards. A door the policy opens to anyone is tried by anonymous and one grant
// (the same code decides for every principal; the expensive documents are not built six times).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../src/version.js'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.js'
import { grantRepository } from '../../src/access/grants.js'
import { ADMIN_PRINCIPAL, anonymousPrincipal, grantPrincipal, POLICY, type Action, type Principal, type Rule } from '../../src/access/policy.js'
import { SCOPES } from '../../src/access/tokens.js'
import { actionsOf } from '../../src/caller/operation.js'
import { pinRepository } from '../../src/access/pins.js'
import { resourceAction } from '../../src/mcp/resources.js'
import { tradingRegistry } from '../../src/trading/registry.js'
import { actionsOfTrading } from '../../src/trading/operation.js'

const ADMIN_TOKEN = 'doors-admin-token-0123456789'
const STRANGER = 'grant:someone-else'

interface Who {
  name: string
  principal: Principal
  headers: Record<string, string>
}

interface Verdict {
  door: string
  who: string
  passed: boolean
  allowed: boolean
  status: string
}

/** Anonymous (inject's address), a grant of each scope alone, and the admin. */
async function principals(app: FastifyInstance): Promise<Who[]> {
  const grants = grantRepository(app.store.sql)
  const out: Who[] = [{ name: 'anonymous', principal: anonymousPrincipal('127.0.0.1'), headers: {} }]
  for (const scope of SCOPES) {
    const { token } = await grants.issue(`only-${scope}`, [scope], 3600, app.clock.now())
    out.push({ name: scope, principal: grantPrincipal(`only-${scope}`, [scope], 'x'), headers: { authorization: `Bearer ${token}` } })
  }
  out.push({ name: 'admin', principal: ADMIN_PRINCIPAL, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  return out
}

/**
 * The doors are under test, not what is behind them: the readiness report (its smoke checks run every admin route)
 * and the self-tests answer at once here, as a failure past the door.
 */
function skipReadinessReport(app: FastifyInstance): void {
  const pastTheDoor = async (): Promise<never> => {
    throw new Error('past the door')
  }
  app.adminCollectors.readiness.report = pastTheDoor
  app.adminCollectors.truth.latest = pastTheDoor
  app.adminCollectors.truth.run = pastTheDoor
}

interface Ids {
  job: string
  pin: string
  dataset: string
  /** Two of the stranger's stored runs (compare takes two). */
  runs: [number, number]
}

/** A route's URL with its parameters filled by things that exist (a stranger's job and runs, a pin, a dataset). */
function urlOf(pattern: string, ids: Ids): string {
  if (pattern.endsWith('/runs/compare')) return `${pattern}?ids=${ids.runs.join(',')}`
  return pattern
    .replace(':id', pattern.includes('/runs/') ? String(ids.runs[0]) : ids.job)
    .replace(':digest', ids.pin)
    .replace(':ref', ids.dataset)
    .replace('/*', '/index.html')
}

/** The owned thing an action is about, if it is one (a job, a run). */
const ownedKind = (action: Action): 'job' | 'run' | null => (POLICY[action].need !== 'owner' ? null : action.startsWith('run.') ? 'run' : 'job')

const refusedStatus = (status: number, owned: boolean) => status === 401 || status === 403 || (owned && status === 404)

describe('the door × principal table (ADMIN_TOKEN set)', () => {
  let app: FastifyInstance
  let who: Who[]
  let ids: Ids
  let strangerHeaders: Record<string, string>
  const verdicts: Verdict[] = []

  let stored = 0
  /**
   * A backtest the stranger stores (fast: 5 or 6), whole with its trades and curve: its run id. Each with cash of its
   * own: an identical submission would be answered by the earlier job (dedupe), naming a run deleted since.
   */
  async function strangerRun(fast: number): Promise<number> {
    app.admission.override('live-bound')
    try {
      const res = await app.inject({
        method: 'POST', url: '/api/v11/trading/backtest', headers: strangerHeaders,
        payload: { dataset: ids.dataset, strategy: 'sma_cross', params: { fast, slow: 20 }, cash: 10_000 + stored++ },
      })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().run.id as number
    } finally {
      app.admission.override('shedding')
    }
  }

  /** After a door that deletes: the stranger's runs are stored again (as new runs) if the door let the delete through. */
  async function restoreRuns(): Promise<void> {
    for (const [k, fast] of [[0, 5], [1, 6]] as const) {
      if (!(await app.store.sql.get('SELECT id FROM runs WHERE id = ?', [ids.runs[k]]))) ids.runs[k] = await strangerRun(fast)
    }
  }

  beforeAll(async () => {
    app = await buildTestApp({ env: { ADMIN_TOKEN, CORS_ORIGINS: 'https://allowed.example' } })
    skipReadinessReport(app)
    who = await principals(app)
    // A stranger's finished job and runs, a pin and a dataset: owned doors are tried on things that exist.
    const { job } = await app.jobs.submit({ op: 'sat', surface: 'caller', owner: STRANGER, input: { dimacs: 'p cnf 1 1\n1 0\n' } })
    await app.jobs.settled(job.id)
    const pin = await app.inject({ method: 'POST', url: '/api/v1/pin', headers: who.at(-1)!.headers, payload: { content: 'door' } })
    const datasets = await app.store.sql.get<{ id: number }>("SELECT id FROM datasets WHERE symbol = 'SYN-DAILY' ORDER BY id DESC LIMIT 1")
    ids = { job: job.id, pin: pin.json().data.digest, dataset: String(datasets!.id), runs: [0, 0] }
    expect((await pinRepository(app.store.sql).get(ids.pin))).not.toBeNull()
    const { token } = await grantRepository(app.store.sql).issue(STRANGER.slice('grant:'.length), ['run:heavy'], 3600, app.clock.now())
    strangerHeaders = { authorization: `Bearer ${token}` }
    ids.runs = [await strangerRun(5), await strangerRun(6)]
    app.admission.override('shedding')
  }, 60_000)
  afterAll(async () => {
    app?.admission.override(null)
    await app?.close()
  })

  const triedBy = (actions: Action[]): Who[] => (actions.every((a) => POLICY[a].need === 'anyone') ? who.slice(0, 2) : who)

  /** The door let `w` through (or not); the policy must say the same of every action the door is. */
  const judge = (door: string, w: Who, actions: Action[], status: number, owner?: string) => {
    const owned = owner !== undefined
    const allowed = actions.every((action) => {
      const kind = ownedKind(action)
      return app.policy.allows(w.principal, action, owned && kind ? { kind, id: kind === 'job' ? ids.job : String(ids.runs[0]), owners: [owner] } : undefined)
    })
    verdicts.push({ door, who: w.name, passed: !refusedStatus(status, owned), allowed, status: `${status} (${actions.join(' + ')})` })
  }

  it('every route of the route table', async () => {
    const operations = new Map(app.registry.operations.map((op) => [`${op.method} /api/v1${op.path}`, op]))
    // A trading route is its door's action, and compute.heavy besides when it works in the mill (the admission asks).
    const tradingOps = new Map(tradingRegistry.map((op) => [`${op.method} ${op.url}`, op]))
    const routes = app.routeTable.filter((r) => r.method !== 'OPTIONS')
    expect(routes.length).toBeGreaterThan(90)
    for (const route of routes) {
      const op = operations.get(`${route.method} ${route.url}`)
      // Operations whose action the input decides are tried with each example (a pin read and a pin write).
      const inputs: unknown[] = op?.inputAction ? op.examples : [{}]
      for (const input of inputs) {
        const access = app.routeAccess.get(`${route.method} ${route.url}`)!
        // The /admin page's shell is public; its panel (partial=1) is the data behind the door.
        const trading = tradingOps.get(`${route.method} ${route.url}`)
        const actions: Action[] = route.url === '/admin' ? ['admin.read'] : op ? actionsOf(op, input) : trading ? actionsOfTrading(trading) : [access]
        if (trading) expect(access, `${route.method} ${route.url}`).toBe(actionsOfTrading(trading)[0])
        if (op) expect(access, `${route.method} ${route.url}`).toBe(actionsOf(op, input)[0])
        for (const w of triedBy(actions)) {
          const url = urlOf(route.url, ids) + (route.url === '/admin' ? '?partial=1' : '')
          const res = await app.inject({
            method: route.method as 'GET', url, headers: { ...w.headers, ...(route.url === '/mcp' ? { accept: 'application/json, text/event-stream' } : {}) },
            ...(route.method === 'POST' ? { payload: route.url === '/mcp' ? { jsonrpc: '2.0', id: 1, method: 'ping' } : input as object } : {}),
          })
          const owned = ownedKind(access) !== null
          judge(`${route.method} ${route.url}${inputs.length > 1 ? ` ${JSON.stringify(input).slice(0, 30)}` : ''}`, w, actions, res.statusCode, owned ? STRANGER : undefined)
          if (route.method === 'DELETE') await restoreRuns()
        }
      }
    }
  }, 120_000)

  it('every registry operation through /run and /cli', async () => {
    for (const op of app.registry.operations) {
      if (op.name === 'run' || op.name === 'cli') continue
      for (const input of op.inputAction ? op.examples : [{}]) {
        const actions = actionsOf(op, input)
        for (const w of triedBy(actions)) {
          const run = await app.inject({ method: 'POST', url: '/api/v1/run', headers: w.headers, payload: { op: op.name, input } })
          judge(`/run ${op.name}`, w, actions, run.statusCode)
          const cli = await app.inject({ method: 'POST', url: '/api/v1/cli', headers: w.headers, payload: { argv: [op.name, '--json', JSON.stringify(input)] } })
          judge(`/cli ${op.name}`, w, actions, cli.statusCode)
        }
      }
    }
  }, 120_000)

  it('every MCP tool and resource', async () => {
    const rpc = async (w: Who, method: string, params: unknown) => {
      const res = await app.inject({
        method: 'POST', url: '/mcp', headers: { ...w.headers, accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method, params },
      })
      return res.json() as { result?: any; error?: { data?: { refuse?: { code: string; http_status: number } } } }
    }
    const admin = who.at(-1)!
    const { tools } = (await rpc(admin, 'tools/list', {})).result as { tools: Array<{ name: string }> }
    expect(tools.length).toBeGreaterThan(20)
    for (const { name } of tools) {
      const op = app.registry.byName(name)
      for (const input of op?.inputAction ? op.examples : [{}]) {
        const trading = tradingRegistry.find((t) => t.mcp?.name === name)
        expect(op ?? trading, `tool ${name} is a registry's`).toBeDefined()
        const actions: Action[] = op ? actionsOf(op, input) : actionsOfTrading(trading!)
        // A tool about a run is tried on the stranger's.
        const owned = !op && ownedKind(actions[0]!) !== null
        for (const w of triedBy(actions)) {
          const args = owned ? (trading!.path.includes(':id') ? { id: ids.runs[0] } : { ids: ids.runs.join(',') }) : input
          const answer = (await rpc(w, 'tools/call', { name, arguments: args })).result as { isError?: boolean; structuredContent?: { refuse?: { http_status: number } } }
          judge(`mcp tool ${name}`, w, actions, answer.isError ? answer.structuredContent!.refuse!.http_status : 200, owned ? STRANGER : undefined)
          if (trading?.method === 'DELETE') await restoreRuns()
        }
      }
    }
    const { resources } = (await rpc(admin, 'resources/list', {})).result as { resources: Array<{ uri: string }> }
    const uris = new Set([...resources.map((r) => r.uri), `ncm://pins/${ids.pin}`, `ncm://datasets/${ids.dataset}`])
    expect([...uris].some((uri) => uri.startsWith('ncm://pins/'))).toBe(true)
    for (const uri of uris) {
      for (const w of triedBy([resourceAction(uri)])) {
        const answer = await rpc(w, 'resources/read', { uri })
        judge(`mcp resource ${uri.replace(/sha256:\w+/, 'sha256:…')}`, w, [resourceAction(uri)], answer.error ? answer.error.data!.refuse!.http_status : 200)
      }
    }
    // The listing itself: the pins in it only for a principal that may list pins.
    for (const w of who) {
      const listed = ((await rpc(w, 'resources/list', {})).result as { resources: Array<{ uri: string }> }).resources
      const hasPins = listed.some((r) => r.uri.startsWith('ncm://pins/'))
      verdicts.push({ door: 'mcp resources/list (pins)', who: w.name, passed: hasPins, allowed: app.policy.allows(w.principal, 'pin.list'), status: String(hasPins) })
    }
  }, 120_000)

  it('agrees with the policy on every pair', () => {
    expect(verdicts.length).toBeGreaterThan(400)
    const disagreements = verdicts.filter((v) => v.passed !== v.allowed)
      .map((v) => `${v.door} as ${v.who}: ${v.passed ? 'let through' : 'refused'} (${v.status}) but the policy ${v.allowed ? 'allows' : 'refuses'} it`)
    expect(disagreements).toEqual([])
    // Every principal is refused somewhere and let through somewhere: the table is not trivially open or closed.
    for (const w of who) {
      expect(verdicts.some((v) => v.who === w.name && v.passed), w.name).toBe(true)
      if (w.name !== 'admin') expect(verdicts.some((v) => v.who === w.name && !v.passed), w.name).toBe(true)
    }
  })
})

describe('the door table of an open host (no ADMIN_TOKEN): everything but the admin-only doors, for anyone', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await buildTestApp()
    skipReadinessReport(app)
    app.admission.override('shedding')
  })
  afterAll(async () => app?.close())

  it('lets anonymous through every route that needs a scope, heavy work or an owner, but not /grant', async () => {
    const refused: string[] = []
    const guarded = app.routeTable.filter((r) => {
      const access = app.routeAccess.get(`${r.method} ${r.url}`)
      const op = app.registry.operations.find((o) => `/api/v1${o.path}` === r.url && o.method === r.method)
      return r.method !== 'OPTIONS' && r.url !== '/mcp' && ((access !== undefined && POLICY[access].need !== 'anyone') || op?.inputAction !== undefined)
    })
    expect(guarded.length).toBeGreaterThan(20)
    for (const route of guarded) {
      const res = await app.inject({ method: route.method as 'GET', url: urlOf(route.url, { job: 'nope', pin: 'sha256:00', dataset: '1', runs: [1, 2] }), ...(route.method === 'POST' ? { payload: {} } : {}) })
      if (res.statusCode === 401 || res.statusCode === 403) refused.push(`${route.method} ${route.url}`)
    }
    expect(refused).toEqual(['POST /api/v1/grant'])
  }, 60_000)
})

describe('docs/security.md', () => {
  it('states the policy table as the code has it', () => {
    const text = readFileSync(join(REPO_ROOT, 'docs', 'security.md'), 'utf8')
    const table = text.slice(text.indexOf('<!-- policy-table'), text.indexOf('<!-- /policy-table -->'))
    const rows = [...table.matchAll(/^\| `([\w.]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]])
    const needs = (rule: Rule): string => {
      switch (rule.need) {
        case 'anyone': return 'anyone'
        case 'scope': return `scope \`${rule.scope}\``
        case 'admin': return 'the admin credential'
        case 'heavy': return 'heavy work (scope `run:heavy`, see below)'
        case 'owner': return `its owner${rule.scope ? ` with scope \`${rule.scope}\`` : ''}, or ${rule.or === 'admin' ? 'the admin credential' : `scope \`${rule.or}\``}`
      }
    }
    expect(rows).toEqual(Object.entries(POLICY).map(([action, rule]) => [action, needs(rule)]))
  })
})
