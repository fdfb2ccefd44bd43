// Work in the mill is heavy work on every door, whatever action the door names: the admission asks the policy's
// compute.heavy for the principal. Found over a real socket on a host with ADMIN_TOKEN set (HEAVY_ACCESS=scoped): an
// anonymous client replayed a stored walk-forward search 40 times at once (34 ran, the mill's queue filled and an admin's
// /sat was answered occupied), and ran Monte Carlo bands, exact /pack searches and large /clauses in the mill, all of
// which the same client is refused as /sat or a /run batch. (Runs have owners since: a stranger's run is 404, so the
// replay is tried by a principal that may read the run, admin:read, but not do heavy work.) A replay is the research again, so it is a job like the
// research: counted in its owner's share of the queue (JOBS_PER_CLIENT), and never shared with an earlier replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { grantRepository } from '../../src/access/grants.js'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'

const ADMIN_TOKEN = 'mill-work-admin-token-0123456789'
const host = listeningTestApp({ env: { ADMIN_TOKEN, TRUST_PROXY: 'true', JOBS_PER_CLIENT: '2', MILL_QUEUE: '32' } })
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
const anonymous = { 'x-forwarded-for': '203.0.113.40' }
const MCP = { accept: 'application/json, text/event-stream' }

async function send(method: 'GET' | 'POST' | 'DELETE', path: string, headers: Record<string, string>, body?: unknown) {
  const res = await request(host.base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, headers: res.headers, json: text.startsWith('{') ? JSON.parse(text) : null, text }
}

/** A DIMACS text past the size /clauses answers on the loop (64 KiB): it goes to the mill. */
function millSizedDimacs(): string {
  const lines = ['p cnf 3000 12000']
  for (let c = 0; c < 12000; c++) lines.push(`${(c % 3000) + 1} -${((c * 7) % 3000) + 1} ${((c * 13) % 3000) + 1} 0`)
  return `${lines.join('\n')}\n`
}

describe('work in the mill asks compute.heavy on every door (ADMIN_TOKEN set, HEAVY_ACCESS=scoped)', () => {
  let runId: number
  let heavyGrant: Record<string, string>
  /** May read every run (admin:read), may not do heavy work. */
  let reader: Record<string, string>

  beforeAll(async () => {
    host.app.admission.override('live-bound')
    const grants = grantRepository(host.app.store.sql)
    heavyGrant = { authorization: `Bearer ${(await grants.issue('replayer', ['run:heavy'], 600, Date.now())).token}` }
    reader = { authorization: `Bearer ${(await grants.issue('auditor', ['admin:read'], 600, Date.now())).token}` }
    const stored = await send('POST', '/api/v11/trading/backtest', heavyGrant, { dataset: 'SYN-DAILY', strategy: 'sma_cross' })
    expect(stored.status, stored.text).toBe(200)
    runId = stored.json.run.id
  })
  afterAll(() => host.app.admission.override(null))

  it('a replay and Monte Carlo of a run its reader may read are refused without run:heavy, as the research itself is', async () => {
    for (const res of [
      await send('POST', `/api/v11/runs/${runId}/replay`, reader),
      await send('GET', `/api/v11/runs/${runId}/monte-carlo?paths=1000`, reader),
      await send('POST', '/api/v11/trading/backtest', reader, { dataset: 'SYN-DAILY', strategy: 'sma_cross' }),
    ]) {
      expect(res.status, res.text).toBe(403)
      expect(res.json.detail).toMatch(/run:heavy/)
    }
    expect((await send('GET', `/api/v11/runs/${runId}`, reader)).status).toBe(200)
    // The same doors as MCP tools.
    for (const [name, args] of [['trading_run_replay', { id: runId }], ['trading_run_monte_carlo', { id: runId, paths: 1000 }]] as const) {
      const res = await send('POST', '/mcp', { ...reader, ...MCP }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
      expect(res.json.result.isError, name).toBe(true)
      expect(res.json.result.structuredContent.refuse).toMatchObject({ code: 'forbidden' })
    }
  })

  it('a light operation whose input sends it to the mill is heavy work on its own route and a single /run, as in a batch', async () => {
    const pack = { items: [49, 49, 26, 26, 25, 25], capacity: 100, exact: 'always' }
    const clauses = { dimacs: millSizedDimacs() }
    for (const res of [
      await send('POST', '/api/v1/pack', anonymous, pack),
      await send('POST', '/api/v1/run', anonymous, { op: 'pack', input: pack }),
      await send('POST', '/api/v1/clauses', anonymous, clauses),
    ]) {
      const refusal = res.json.refuse ?? res.json.data?.results?.[0]?.refuse
      expect(refusal, res.text.slice(0, 300)).toMatchObject({ code: 'unauthorized' })
      expect(refusal.reason).toMatch(/run:heavy/)
    }
    // exact "auto" answers with the heuristics and says why the search did not run.
    const auto = await send('POST', '/api/v1/pack', anonymous, { ...pack, exact: 'auto' })
    expect(auto.status, auto.text).toBe(200)
    expect(auto.json.data.exact).toMatchObject({ status: 'skipped', packing: null })
    expect(auto.json.data.exact.reason).toMatch(/run:heavy/)
    // With the scope each of them runs.
    expect((await send('POST', '/api/v1/pack', heavyGrant, pack)).json.data.exact.optimal).toBe(true)
    expect((await send('POST', '/api/v1/clauses', heavyGrant, clauses)).status).toBe(200)
    expect((await send('GET', `/api/v11/runs/${runId}/monte-carlo?paths=100`, heavyGrant)).status).toBe(200)
  })

  it('a replay is a job: counted in its owner\'s share, never shared with an earlier identical replay', async () => {
    const sync = await send('POST', `/api/v11/runs/${runId}/replay`, heavyGrant)
    expect(sync.status, sync.text).toBe(200)
    expect(sync.json).toMatchObject({ run_id: runId, identical: true })
    const again = await send('POST', `/api/v11/runs/${runId}/replay`, { ...heavyGrant, prefer: 'respond-async' })
    expect(again.status, again.text).toBe(202)
    expect(again.headers['idempotent-replayed']).toBeUndefined()
    expect((await host.app.jobs.settled(again.json.id)).ok).toBe(true)
    // Two unfinished jobs fill the grant's share (JOBS_PER_CLIENT=2): a replay is refused with it, as any job.
    const hard = { dimacs: pigeonholeDimacs(11), want_model: false, timeout_ms: 30_000 }
    const held: string[] = []
    for (let i = 0; i < 2; i++) {
      const res = await send('POST', '/api/v1/sat', { ...heavyGrant, prefer: 'respond-async' }, hard)
      expect(res.status, res.text).toBe(202)
      held.push(res.json.data.id)
    }
    const past = await send('POST', `/api/v11/runs/${runId}/replay`, heavyGrant)
    expect(past.status, past.text).toBe(503)
    expect(past.json).toMatchObject({ code: 'occupied' })
    expect(past.json.detail).toMatch(/JOBS_PER_CLIENT/)
    for (const id of held) await send('DELETE', `/api/v1/jobs/${id}`, heavyGrant)
  }, 60_000)

  // Found on a host whose heavy work is open (HEAVY_ACCESS=open, or any run:heavy grant): 36 exact /pack searches of one
  // client, each a request and no job, filled the mill's queue, and every other client's heavy work was answered occupied
  // for their whole budget. A request's own mill work now counts in its owner's share as its jobs do.
  it('work in the mill outside jobs counts in its owner\'s share of the queue', async () => {
    const hard = {
      items: [244, 334, 312, 290, 265, 255, 223, 342, 248, 289, 332, 243, 258, 313, 343, 275, 290, 242, 339, 336, 335, 263, 222, 263],
      capacity: 1000, exact: 'always', timeout_ms: 3000,
    }
    const inMill = () => host.app.mill.stats().running + host.app.mill.stats().queue_size
    // The mill idle first: the tasks of the jobs the test before cancelled may still be ending, and would count below.
    for (let i = 0; i < 1000 && inMill() > 0; i++) await new Promise((r) => setTimeout(r, 10))
    expect(inMill()).toBe(0)
    const held = [0, 1].map(() => send('POST', '/api/v1/pack', heavyGrant, hard))
    // Both in the mill: running, or waiting for a worker (MILL_THREADS is one on a two-core machine).
    for (let i = 0; i < 500 && inMill() < 2; i++) await new Promise((r) => setTimeout(r, 10))
    expect(inMill()).toBeGreaterThanOrEqual(2)
    const third = await send('POST', '/api/v1/pack', heavyGrant, hard)
    expect(third.status, third.text.slice(0, 300)).toBe(503)
    expect(third.json.refuse).toMatchObject({ code: 'occupied', hints: { limit: 'JOBS_PER_CLIENT', value: 2 } })
    // Another principal is still let in.
    const other = await send('POST', '/api/v1/sat', { ...admin, prefer: 'respond-async' }, { dimacs: 'p cnf 1 1\n1 0\n' })
    expect(other.status, other.text).toBe(202)
    for (const res of await Promise.all(held)) expect(res.json.data.exact.status).not.toBe('skipped')
    // Its searches ended: the grant's share is whole again.
    expect((await send('POST', '/api/v1/pack', heavyGrant, { ...hard, timeout_ms: 50 })).status).toBe(200)
  }, 60_000)

  it('a replay of an id that is not a run is refused before a job exists', async () => {
    expect((await send('POST', '/api/v11/runs/999999/replay', heavyGrant)).status).toBe(404)
    expect((await send('POST', '/api/v11/runs/abc/replay', heavyGrant)).status).toBe(400)
  })
})
