// Issue #25 items 1, 2 and 12 over a real socket: a job, its input, events, result and Idempotency-Key belong to the
// principal that submitted it (a stranger's key is its own key; a stranger's id answers 404, never the owner's data);
// MCP resources ask the policy as their routes do (pins listed only with admin:read); a malformed pin URI is refused
// as input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { grantRepository } from '../../src/access/grants.js'
import type { Scope } from '../../src/access/tokens.js'
import { pigeonholeDimacs } from '../../src/engines/sat/pigeonhole.js'

const ADMIN_TOKEN = 'owners-admin-token-0123456789'
const host = listeningTestApp({ env: { ADMIN_TOKEN, TRUST_PROXY: 'true' } })
const SAT = { dimacs: 'p cnf 2 2\n1 2 0\n-1 0\n' }
const OTHER_SAT = { dimacs: 'p cnf 1 1\n1 0\n' }

async function send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await request(host.base + path, {
    method: method as 'GET',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, headers: res.headers, json: text.startsWith('{') ? JSON.parse(text) : null, text }
}

describe('owners of jobs (item 2)', () => {
  let alice: Record<string, string>
  let bob: Record<string, string>
  let reader: Record<string, string>
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const issue = async (subject: string, scopes: Scope[]) =>
    ({ authorization: `Bearer ${(await grantRepository(host.app.store.sql).issue(subject, scopes, 600, Date.now())).token}` })

  beforeAll(async () => {
    host.app.admission.override('live-bound')
    alice = await issue('alice', ['run:heavy'])
    bob = await issue('bob', ['run:heavy'])
    reader = await issue('auditor', ['admin:read'])
  })
  afterAll(() => host.app.admission.override(null))

  it("a stranger's Idempotency-Key is its own: neither the owner's job nor a conflict naming it", async () => {
    const async = { prefer: 'respond-async', 'idempotency-key': 'shared-key-1' }
    const owned = await send('POST', '/api/v1/sat', { ...alice, ...async }, SAT)
    expect(owned.status).toBe(202)
    const jobId = owned.json.data.id as string
    const replay = await send('POST', '/api/v1/sat', { ...alice, ...async }, SAT)
    expect(replay.json.data.id).toBe(jobId)
    expect(replay.headers['idempotent-replayed']).toBe('true')

    const sameInput = await send('POST', '/api/v1/sat', { ...bob, ...async }, SAT)
    expect(sameInput.status).toBe(202)
    expect(sameInput.json.data.id).not.toBe(jobId)
    const otherInput = await send('POST', '/api/v1/sat', { ...bob, ...async }, OTHER_SAT)
    expect(otherInput.status).toBe(409) // bob's own key, reused by bob with another input
    expect(otherInput.text).not.toContain(jobId)
  })

  it("a stranger's job id answers 404 on read, result, events and cancel; the owner and admin:read read it", async () => {
    const owned = await send('POST', '/api/v1/sat', { ...alice, prefer: 'respond-async' }, SAT)
    const id = owned.json.data.id as string
    await host.app.jobs.settled(id)
    for (const stranger of [bob, {}, { 'x-forwarded-for': '203.0.113.9' }]) {
      for (const path of [`/api/v1/jobs/${id}`, `/api/v1/jobs/${id}/result`, `/api/v1/jobs/${id}/events`, `/api/v11/jobs/${id}`]) {
        const res = await send('GET', path, stranger)
        expect(res.status, `${path} ${JSON.stringify(stranger)}`).toBe(404)
        expect(res.text).not.toContain('"status":"SAT"')
      }
      const cancel = await send('DELETE', `/api/v1/jobs/${id}`, stranger)
      expect(cancel.status).toBe(404)
    }
    // What a stranger hears of an existing id is exactly what an unknown one gets.
    const unknown = await send('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', bob)
    const foreign = await send('GET', `/api/v1/jobs/${id}`, bob)
    expect(foreign.json.refuse.reason.replace(id, 'ID')).toBe(unknown.json.refuse.reason.replace('00000000-0000-4000-8000-000000000000', 'ID'))

    expect((await send('GET', `/api/v1/jobs/${id}/result`, alice)).json.data.status).toBe('SAT')
    expect((await send('GET', `/api/v1/jobs/${id}`, reader)).status).toBe(200)
    expect((await send('DELETE', `/api/v1/jobs/${id}`, reader)).status).toBe(404) // admin:read reads all, cancels none
  })

  it('a running job cannot be cancelled by a stranger, only by its owner', async () => {
    const hard = { dimacs: pigeonholeDimacs(9), timeout_ms: 20_000 }
    const owned = await send('POST', '/api/v1/sat', { ...alice, prefer: 'respond-async' }, hard)
    const id = owned.json.data.id as string
    expect((await send('DELETE', `/api/v1/jobs/${id}`, bob)).status).toBe(404)
    expect((await host.app.jobs.get(id))!.state).not.toBe('cancelled')
    const mine = await send('DELETE', `/api/v1/jobs/${id}`, alice)
    expect([200, 202]).toContain(mine.status)
    expect((await host.app.jobs.settled(id)).job.state).toBe('cancelled')
  })

  it('anonymous clients are told apart by their address (behind TRUST_PROXY the forwarded one)', async () => {
    // An open heavy door is the operator's choice; here anonymous clients read the jobs an admin lists for no one.
    const owned = await send('POST', '/api/v1/sat', { ...admin, prefer: 'respond-async' }, SAT)
    const id = owned.json.data.id as string
    expect((await send('GET', `/api/v1/jobs/${id}`, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(404)
    expect((await send('GET', `/api/v1/jobs/${id}`, admin)).status).toBe(200)
  })
})

describe('MCP resources ask the policy (items 1 and 12)', () => {
  const rpc = async (headers: Record<string, string>, method: string, params: unknown) =>
    (await send('POST', '/mcp', { accept: 'application/json, text/event-stream', ...headers }, { jsonrpc: '2.0', id: 1, method, params })).json

  it('lists pins only for admin:read; anonymous and pin:write see documents and datasets only', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
    const pinned = await send('POST', '/api/v1/pin', admin, { content: 'a pinned secret label', label: 'private-label' })
    const digest = pinned.json.data.digest as string
    const pinWriter = { authorization: `Bearer ${(await grantRepository(host.app.store.sql).issue('writer', ['pin:write'], 600, Date.now())).token}` }
    for (const who of [{}, pinWriter]) {
      const listed = (await rpc(who, 'resources/list', {})).result.resources as Array<{ uri: string; title: string }>
      expect(listed.some((r) => r.uri === 'ncm://lexicon')).toBe(true)
      expect(listed.some((r) => r.uri.startsWith('ncm://pins/'))).toBe(false)
      expect(JSON.stringify(listed)).not.toContain('private-label')
    }
    const listed = (await rpc(admin, 'resources/list', {})).result.resources as Array<{ uri: string }>
    expect(listed.some((r) => r.uri === `ncm://pins/${digest}`)).toBe(true)
    // A pin is content-addressed: read by its digest it stays public, as POST /pin {digest} is.
    const read = await rpc({}, 'resources/read', { uri: `ncm://pins/${digest}` })
    expect(read.result.contents[0].text).toBe('a pinned secret label')
  })

  it('a malformed pin URI is an input refusal, not an internal error', async () => {
    const answer = await rpc({}, 'resources/read', { uri: 'ncm://pins/%E0%A4%A' })
    expect(answer.error.code).toBe(-32602)
    expect(answer.error.data.refuse).toMatchObject({ code: 'invalid_input', http_status: 400 })
  })
})

