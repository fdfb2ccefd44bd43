// Issue #13 items 1 (amplifying inputs) and 2 (op-name spellings), over a real socket, with ADMIN_TOKEN set.
import { describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { registry } from '../../src/caller/registry.js'
import { monitorHealth, postRaw } from './monitor.js'

const ADMIN_TOKEN = 'hardening-admin-token-0123456789'
const host = listeningTestApp({ env: { ADMIN_TOKEN, RUN_BATCH_MAX_WEIGHT: '200000' } })
/** A patch that grows past the inline size is worked in the mill: heavy work, so these ask with the admin credential. */
const heavy = { authorization: `Bearer ${ADMIN_TOKEN}` }

/** A patch of `n` operations each copying the whole document into a new member: the document doubles n times. */
const doublingPatch = (n: number) => Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` }))

describe('amplifying inputs are refused over_limit, counted as they grow', () => {
  it('a 1 KB /diff patch of 30 whole-document copies (it froze the loop, then killed the process)', async () => {
    const body = JSON.stringify({ a: { seed: 'x' }, patch: doublingPatch(30), mode: 'json' })
    expect(body.length).toBeLessThan(1500)
    const monitor = monitorHealth(host.base)
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await postRaw(host.base, '/api/v1/diff', body, 'application/json', heavy))
    const health = await monitor.stop()
    console.log(`30-copy /diff ×3: ${health.summary}`)
    for (const res of answers) {
      expect(res.status).toBe(422)
      expect(res.body.refuse.code).toBe('over_limit')
      expect(res.body.refuse.reason).toMatch(/DIFF_PATCH_MAX_WEIGHT/)
    }
    expect(health.failures).toBe(0)
  })

  it('a patch that grows past the inline size but within the budget is applied in the mill and verified', async () => {
    const a = { pad: 'p'.repeat(40_000) }
    const res = await postRaw(host.base, '/api/v1/diff', JSON.stringify({ a, patch: doublingPatch(4), mode: 'json' }), 'application/json', heavy)
    expect(res.status).toBe(200)
    expect(res.body.data.verified).toBe(true)
    expect(JSON.stringify(res.body.data.result).length).toBeGreaterThan(16 * 40_000)
  })

  it('a /run batch whose answers outweigh RUN_BATCH_MAX_WEIGHT gets over_limit for the jobs past it', async () => {
    const batch = Array.from({ length: 20 }, () => ({ op: 'digest', input: { content: 'y'.repeat(9_000), algorithms: ['sha256'] } }))
    const small = await postRaw(host.base, '/api/v1/run', JSON.stringify({ batch: batch.slice(0, 2) }))
    expect(small.body.data.refused).toBe(0)
    const patchJobs = Array.from({ length: 6 }, () => ({ op: 'diff', input: { a: { s: 'z'.repeat(5000) }, patch: doublingPatch(3), mode: 'json' } }))
    const res = await postRaw(host.base, '/api/v1/run', JSON.stringify({ batch: patchJobs }))
    expect(res.status).toBe(200)
    const codes = res.body.data.results.map((r: { refuse: { code: string } | null }) => r.refuse?.code ?? 'ok')
    expect(codes).toContain('ok')
    expect(codes).toContain('over_limit')
  })
})

describe('op-name spellings resolve to one canonical operation before scopes are checked', () => {
  const example = (name: string) => registry.byName(name)!.examples[0]
  for (const [spelling, name] of [['/sat', 'sat'], ['//sat', 'sat'], ['SAT', 'sat'], ['/jsonsat', 'jsonsat'], ['/race', 'race'], ['/budget', 'budget'], ['Budget', 'budget']] as const) {
    it(`an anonymous batch with "${spelling}" needs run:heavy (it ran anonymously)`, async () => {
      const res = await postRaw(host.base, '/api/v1/run', JSON.stringify({ batch: [{ op: spelling, input: example(name) }] }))
      expect(res.status).toBe(401)
      expect(res.body.refuse.code).toBe('unauthorized')
      expect(res.body.refuse.reason).toMatch(/run:heavy/)
    })
  }

  it('a light operation whose input runs in the mill (exact /pack) is heavy for a batch too', async () => {
    const pack = { items: [49, 49, 26, 26, 25, 25], capacity: 100, exact: 'always' }
    const res = await postRaw(host.base, '/api/v1/run', JSON.stringify({ batch: [{ op: 'pack', input: pack }, { op: 'surface' }] }))
    expect(res.status).toBe(200)
    expect(res.body.data.results[0].refuse.code).toBe('unauthorized')
    expect(res.body.data.results[0].refuse.reason).toMatch(/run:heavy/)
    expect(res.body.data.results[1].ok).toBe(true)
    const authorized = await host.app.inject({
      method: 'POST', url: '/api/v1/run', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { batch: [{ op: 'pack', input: pack }] },
    })
    expect(authorized.json().data.results[0].data.exact.optimal).toBe(true)
  })

  it('a batch may start at most 8 mill tasks', async () => {
    const sat = { op: '/SAT', input: { dimacs: 'p cnf 1 1\n1 0\n' } }
    const res = await host.app.inject({
      method: 'POST', url: '/api/v1/run', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { batch: Array.from({ length: 9 }, () => sat) },
    })
    expect(res.statusCode).toBe(422)
    expect(res.json().refuse.reason).toMatch(/at most 8 heavy jobs/)
  })

  it('a single /run of "//SAT" answers as /sat: refused anonymously as /sat is (issue #25 item 9), solved with run:heavy', async () => {
    const body = { op: '//SAT', input: { dimacs: 'p cnf 1 1\n1 0\n' } }
    const anonymous = await postRaw(host.base, '/api/v1/run', JSON.stringify(body))
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.refuse.reason).toMatch(/run:heavy/)
    const res = await host.app.inject({ method: 'POST', url: '/api/v1/run', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.results[0].op).toBe('sat')
  })
})
