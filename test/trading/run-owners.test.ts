// Runs belong to the principals that stored them (issue #27's foreign run): on a host with ADMIN_TOKEN, a run another
// principal stored answers 404 on every run route and MCP tool exactly as an unknown id, lists show one's own runs
// (every run for admin:read), a repeat of the same inputs makes its principal an owner of the one stored run, and a
// delete gives one's ownership up (the run goes with its last owner; the admin deletes it outright).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grantRepository } from '../../src/access/grants.js'
import type { Scope } from '../../src/access/tokens.js'
import { buildTradingApp } from './helper.js'

const ADMIN_TOKEN = 'run-owners-admin-token-0123456789'

interface Caller {
  name: string
  headers: Record<string, string>
  remoteAddress: string
}

let app: FastifyInstance
const anon = (ip: string): Caller => ({ name: `anonymous ${ip}`, headers: {}, remoteAddress: ip })
const alice = anon('10.1.0.1')
const bob = anon('10.1.0.2')
const admin: Caller = { name: 'admin', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, remoteAddress: '10.1.0.9' }
let reader: Caller
let carol: Caller
let dave: Caller

async function grant(subject: string, scopes: Scope[]): Promise<Caller> {
  const { token } = await grantRepository(app.store.sql).issue(subject, scopes, 3600, app.clock.now())
  return { name: subject, headers: { authorization: `Bearer ${token}` }, remoteAddress: '10.1.0.50' }
}

const call = (who: Caller, method: 'GET' | 'POST' | 'DELETE', url: string, extra: { payload?: object; headers?: Record<string, string> } = {}) =>
  app.inject({ method, url, headers: { ...who.headers, ...extra.headers }, remoteAddress: who.remoteAddress, ...(extra.payload ? { payload: extra.payload } : {}) })

function ok(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** A backtest stored by `who`: its run id. */
async function backtest(who: Caller, params: Record<string, number>, extra: object = {}): Promise<{ id: number; stored: boolean }> {
  const body = ok(await call(who, 'POST', '/api/v11/trading/backtest', { payload: { dataset: 'SYN-DAILY', strategy: 'sma_cross', params, ...extra } }))
  return body.run
}

/** Every door to one run (by id): routes, their CSV forms, and compare beside a run of the caller's own. */
const runDoors = (id: number, own: number): Array<{ door: string; method: 'GET' | 'POST' | 'DELETE'; url: string; headers?: Record<string, string> }> => [
  { door: 'run', method: 'GET', url: `/api/v11/runs/${id}` },
  { door: 'run with trades', method: 'GET', url: `/api/v11/runs/${id}?include=trades` },
  { door: 'trades', method: 'GET', url: `/api/v11/runs/${id}/trades` },
  { door: 'trades csv', method: 'GET', url: `/api/v11/runs/${id}/trades`, headers: { accept: 'text/csv' } },
  { door: 'equity', method: 'GET', url: `/api/v11/runs/${id}/equity` },
  { door: 'equity csv', method: 'GET', url: `/api/v11/runs/${id}/equity`, headers: { accept: 'text/csv' } },
  { door: 'report', method: 'GET', url: `/api/v11/runs/${id}/report` },
  { door: 'monte carlo', method: 'GET', url: `/api/v11/runs/${id}/monte-carlo?paths=20` },
  { door: 'compare', method: 'GET', url: `/api/v11/runs/compare?ids=${own},${id}` },
  { door: 'replay', method: 'POST', url: `/api/v11/runs/${id}/replay` },
]

/** The problem a door answers, with the run id masked: a stranger's run must read exactly as an unknown one. */
async function problemOf(who: Caller, door: ReturnType<typeof runDoors>[number], id: number) {
  const res = await call(who, door.method, door.url, door.headers ? { headers: door.headers } : {})
  const body = res.statusCode === 404 ? JSON.stringify(res.json()).replace(new RegExp(`(?<![\\w.])${id}(?![\\w.])`, 'g'), '<id>') : res.body.slice(0, 200)
  return { status: res.statusCode, body }
}

beforeAll(async () => {
  app = await buildTradingApp({ env: { ADMIN_TOKEN, HEAVY_ACCESS: 'open' } })
  reader = await grant('auditor', ['admin:read'])
  carol = await grant('carol', ['trading:write'])
  dave = await grant('dave', ['trading:write'])
})
afterAll(async () => {
  await app?.close()
})

describe('a run another principal stored', () => {
  let run: number
  let bobs: number
  beforeAll(async () => {
    run = (await backtest(alice, { fast: 5, slow: 20 })).id
    bobs = (await backtest(bob, { fast: 7, slow: 30 })).id
  })

  it('answers 404 on every run route exactly as an unknown id, to anonymous strangers and grants alike', async () => {
    const unknown = 99_999
    for (const stranger of [bob, carol]) {
      for (const door of runDoors(run, bobs)) {
        const foreign = await problemOf(stranger, door, run)
        const absent = await problemOf(stranger, runDoors(unknown, bobs).find((d) => d.door === door.door)!, unknown)
        expect(foreign, `${door.door} as ${stranger.name}`).toEqual(absent)
        expect(foreign.status, `${door.door} as ${stranger.name}`).toBe(404)
      }
    }
    // Deleting it too (carol holds trading:write; anonymous clients are refused the scope before any id is looked at).
    expect((await call(carol, 'DELETE', `/api/v11/runs/${run}`)).statusCode).toBe(404)
    expect((await call(bob, 'DELETE', `/api/v11/runs/${run}`)).statusCode).toBe(401)
    expect((await call(bob, 'DELETE', `/api/v11/runs/${unknown}`)).statusCode).toBe(401)
  })

  it('is read by its owner and by admin:read on every door', async () => {
    for (const who of [alice, reader, admin]) {
      for (const door of runDoors(run, who === alice ? run : bobs)) {
        if (door.door === 'compare' && who === alice) continue // ids must differ
        const res = await call(who, door.method, door.url, door.headers ? { headers: door.headers } : {})
        expect(res.statusCode, `${door.door} as ${who.name}: ${res.body.slice(0, 200)}`).toBe(200)
      }
    }
  })

  it('is left out of the stranger\'s lists and command center, and listed for its owner and admin:read', async () => {
    const ids = async (who: Caller) => ok(await call(who, 'GET', '/api/v11/runs?limit=100')).runs.map((r: { id: number }) => r.id) as number[]
    expect(await ids(alice)).toContain(run)
    expect(await ids(alice)).not.toContain(bobs)
    expect(await ids(bob)).toEqual([bobs])
    expect(await ids(reader)).toEqual(expect.arrayContaining([run, bobs]))
    expect(await ids(admin)).toEqual(expect.arrayContaining([run, bobs]))
    const panels = async (who: Caller) => ok(await call(who, 'GET', '/api/v6/command-center/panels')).panels
    expect((await panels(bob)).runs.map((r: { id: number }) => r.id)).toEqual([bobs])
    expect((await panels(bob)).equity.run_id).toBe(bobs)
    expect((await panels(alice)).equity.run_id).toBe(run)
    // A signal names the run that found it only to those who may read the run.
    const search = ok(await call(alice, 'POST', '/api/v11/trading/max-edge-signal', {
      payload: { dataset: 'SYN-DAILY', strategies: ['sma_cross'], grid: { sma_cross: { fast: [5, 10], slow: [30, 60] } }, in_sample: 200, out_of_sample: 50 },
    }))
    const signalOf = async (who: Caller) => (await panels(who)).signals.find((x: { origin: string }) => x.origin === 'max-edge-signal')
    expect((await signalOf(alice)).run_id).toBe(search.run.id)
    expect((await signalOf(reader)).run_id).toBe(search.run.id)
    expect(await signalOf(bob)).toMatchObject({ strategy: 'sma_cross', run_id: null })
    // The page is rendered per viewer: the same second and data version, another principal's page.
    const page = async (who: Caller) => (await call(who, 'GET', '/command-center')).body
    expect(await page(alice)).toContain(`data-run-id="${run}"`)
    expect(await page(bob)).not.toContain(`data-run-id="${run}"`)
    expect(await page(bob)).toContain(`data-run-id="${bobs}"`)
    expect(await page(bob)).not.toContain(`/api/v11/runs/${run}/report`)
  })

  it('is unknown to the stranger\'s MCP tools, which list its own runs', async () => {
    const tool = async (who: Caller, name: string, args: object) => {
      const res = await call(who, 'POST', '/mcp', {
        headers: { accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      })
      return res.json().result as { isError?: boolean; structuredContent?: any }
    }
    for (const [name, args] of [['trading_run_trades', { id: run }], ['trading_run_monte_carlo', { id: run, paths: 20 }], ['trading_run_replay', { id: run }],
      ['trading_runs_compare', { ids: `${bobs},${run}` }]] as const) {
      const answer = await tool(bob, name, args)
      expect(answer.isError, name).toBe(true)
      expect(answer.structuredContent.refuse, name).toMatchObject({ code: 'not_found', http_status: 404 })
    }
    expect((await tool(carol, 'trading_run_delete', { id: run })).structuredContent.refuse).toMatchObject({ code: 'not_found' })
    expect((await tool(alice, 'trading_run_trades', { id: run })).isError).toBeFalsy()
    const listed = (await tool(bob, 'trading_runs', { limit: 100 })).structuredContent.runs.map((r: { id: number }) => r.id)
    expect(listed).toEqual([bobs])
  })

  it('belongs to whoever submitted the job that stored it', async () => {
    const res = await call(bob, 'POST', '/api/v11/trading/backtest', {
      headers: { prefer: 'respond-async' }, payload: { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 9, slow: 40 } },
    })
    expect(res.statusCode, res.body).toBe(202)
    const job = res.json().id as string
    let result: any = null
    for (let i = 0; i < 200 && result === null; i++) {
      const got = await call(bob, 'GET', `/api/v11/jobs/${job}/result`)
      if (got.statusCode === 200) result = got.json()
      else await new Promise((r) => setTimeout(r, 50))
    }
    const id = (result.result ?? result).run.id as number
    expect((await call(bob, 'GET', `/api/v11/runs/${id}`)).statusCode).toBe(200)
    expect((await call(alice, 'GET', `/api/v11/runs/${id}`)).statusCode).toBe(404)
  })
})

describe('one run, several owners', () => {
  it('makes a repeat of the same inputs by another principal an owner of the one stored run', async () => {
    const first = await backtest(alice, { fast: 4, slow: 25 })
    expect(first.stored).toBe(true)
    expect((await call(bob, 'GET', `/api/v11/runs/${first.id}`)).statusCode).toBe(404)
    const repeat = await backtest(bob, { fast: 4, slow: 25 })
    expect(repeat).toMatchObject({ id: first.id, stored: false })
    expect((await call(bob, 'GET', `/api/v11/runs/${first.id}/trades`)).statusCode).toBe(200)
    const count = Number((await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM runs WHERE id = ?', [first.id]))!.n)
    expect(count).toBe(1)
  })

  it('gives one owner\'s ownership up on delete; the run goes with its last owner', async () => {
    const first = await backtest(carol, { fast: 3, slow: 35 }, { cash: 20_000 })
    await backtest(dave, { fast: 3, slow: 35 }, { cash: 20_000 })
    const gone = ok(await call(carol, 'DELETE', `/api/v11/runs/${first.id}`))
    expect(gone).toMatchObject({ deleted: { id: first.id }, removed: false })
    expect((await call(carol, 'GET', `/api/v11/runs/${first.id}`)).statusCode).toBe(404)
    expect((await call(carol, 'DELETE', `/api/v11/runs/${first.id}`)).statusCode).toBe(404)
    expect((await call(dave, 'GET', `/api/v11/runs/${first.id}/equity`)).statusCode).toBe(200)
    expect(ok(await call(dave, 'DELETE', `/api/v11/runs/${first.id}`))).toMatchObject({ removed: true })
    expect((await call(admin, 'GET', `/api/v11/runs/${first.id}`)).statusCode).toBe(404)
    const rows = await app.store.sql.get<{ trades: number; owners: number }>(
      'SELECT (SELECT count(*) FROM run_trades WHERE run_id = ?) AS trades, (SELECT count(*) FROM run_owners WHERE run_id = ?) AS owners', [first.id, first.id])
    expect({ trades: Number(rows!.trades), owners: Number(rows!.owners) }).toEqual({ trades: 0, owners: 0 })
  })

  it('lets the admin credential delete a run others own, outright', async () => {
    const first = await backtest(alice, { fast: 6, slow: 45 })
    await backtest(bob, { fast: 6, slow: 45 })
    expect(ok(await call(admin, 'DELETE', `/api/v11/runs/${first.id}`))).toMatchObject({ removed: true })
    for (const who of [alice, bob, admin]) expect((await call(who, 'GET', `/api/v11/runs/${first.id}`)).statusCode).toBe(404)
  })
})

describe('an open host (no ADMIN_TOKEN)', () => {
  let open: FastifyInstance
  beforeAll(async () => {
    open = await buildTradingApp()
  })
  afterAll(async () => {
    await open?.close()
  })

  it('grants every principal admin:read: anyone reads and lists every run, but deletes only its own', async () => {
    const res = await open.inject({ method: 'POST', url: '/api/v11/trading/backtest', remoteAddress: '10.2.0.1', payload: { dataset: 'SYN-DAILY', strategy: 'sma_cross', params: { fast: 5, slow: 20 } } })
    const id = res.json().run.id as number
    expect((await open.inject({ method: 'GET', url: `/api/v11/runs/${id}/trades`, remoteAddress: '10.2.0.2' })).statusCode).toBe(200)
    const listed = (await open.inject({ method: 'GET', url: '/api/v11/runs', remoteAddress: '10.2.0.2' })).json().runs.map((r: { id: number }) => r.id)
    expect(listed).toContain(id)
    expect((await open.inject({ method: 'DELETE', url: `/api/v11/runs/${id}`, remoteAddress: '10.2.0.2' })).statusCode).toBe(404)
    expect((await open.inject({ method: 'DELETE', url: `/api/v11/runs/${id}`, remoteAddress: '10.2.0.1' })).json()).toMatchObject({ removed: true })
  })
})
