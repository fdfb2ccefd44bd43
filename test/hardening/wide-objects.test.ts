// Issue #13: the widest objects a body may hold (~37k keys: JSON_MAX_VALUES with a member counting 4), accepted by
// /pin, /diff and /jsonsat, over a real socket with a health monitor and a watch on the loop beside them. Their keys
// crossed the thread boundaries as objects (the body back from the body parser's thread, the diff to and from the mill, the
// model and assignment back) and were walked on the loop: 40–90 ms of its CPU in single stretches.
import { beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { listeningTestApp } from '../helper.js'
import { monitorHealth, pastStartReport, watchLoop } from './monitor.js'

const host = listeningTestApp()

/**
 * CPU of the loop's thread between two turns that no request here may reach. Before: /pin 16–29 ms (the clone of 37k
 * keys back from the body parser's thread, then writing them again for the mill), /diff 28–47 (the clone back, the depth and
 * weight walks, the clone to the mill and of 37k patch operations back), /jsonsat 23–45 (the clone of the formula back,
 * of the model and 30k-key assignment from the mill); after: 4–9 ms.
 */

const KEYS = 37_490
const wideObject = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, i]))
const manyVars = (count: number) => Array.from({ length: count }, (_, i) => ({ var: `v${i}` }))

/** POSTs a body already written; answers the status and the text (parsed only after the watch: it is the client's work). */
async function postText(path: string, body: string): Promise<{ status: number; text: string }> {
  const res = await request(`${host.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.statusCode, text: await res.body.text() }
}

/** Sends each body in turn with the health monitor and the loop watch beside them; prints both. */
async function besideHealth(label: string, path: string, bodies: string[]) {
  const monitor = monitorHealth(host.base)
  const loop = watchLoop()
  const answers = []
  for (const body of bodies) answers.push(await postText(path, body))
  const stretch = loop.stop()
  const health = await monitor.stop()
  console.log(`${label} ×${bodies.length}: ${health.summary}; ${stretch.summary}`)
  return { answers: answers.map((a) => ({ status: a.status, body: JSON.parse(a.text) })), health }
}

describe('objects of 37k keys cost the loop no long stretch', () => {
  beforeAll(() => pastStartReport(host.app), 60_000)

  it('/pin of a 37k-key object: pinned, its canonical form made in the mill from the body\'s text', async () => {
    const bodies = Array.from({ length: 6 }, (_, n) => JSON.stringify({ json: { n, ...wideObject } }))
    await postText('/api/v1/pin', JSON.stringify({ json: { n: 'warm-up', ...wideObject } }))
    const { answers, health } = await besideHealth('37k-key /pin', '/api/v1/pin', bodies)
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body.refuse)).toBe(200)
      expect(res.body.data).toMatchObject({ action: 'pinned', created: true, media_type: 'application/json' })
    }
    // The canonical form: keys sorted, so the digest of the value sent with its keys in another order is the same.
    const reordered = JSON.stringify({ json: Object.fromEntries(Object.entries({ n: 0, ...wideObject }).reverse()) })
    const again = await postText('/api/v1/pin', reordered)
    expect(JSON.parse(again.text).data).toMatchObject({ digest: answers[0]!.body.data.digest, created: false })
    expect(health.failures).toBe(0)
  })

  it('/diff of a 37k-key object against {}: 37k remove operations, diffed in the mill and written there', async () => {
    const body = JSON.stringify({ a: wideObject, b: {}, mode: 'json' })
    await postText('/api/v1/diff', body)
    const { answers, health } = await besideHealth('37k-key /diff', '/api/v1/diff', [body, body, body])
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body.refuse)).toBe(200)
      const data = res.body.data
      expect(data).toMatchObject({ mode: 'json', removed: KEYS + 2, added: 1, verified: true })
      expect(data.patch).toHaveLength(KEYS)
      expect(data.patch[KEYS - 1]).toEqual({ op: 'remove', path: `/k${KEYS - 1}` })
      expect(data.hunks.map((h: { parts: Array<{ kind: string }> }) => h.parts.map((p) => p.kind))).toEqual([['removed', 'added']])
    }
    expect(health.failures).toBe(0)
  })

  it('/jsonsat of an and of 30k variables: SAT with its whole model and assignment', async () => {
    const bodies = Array.from({ length: 3 }, (_, n) => JSON.stringify({ formula: { and: [{ var: `n${n}` }, ...manyVars(29_990)] } }))
    await postText('/api/v1/jsonsat', JSON.stringify({ formula: { and: [{ var: 'warm-up' }, ...manyVars(29_990)] } }))
    const { answers, health } = await besideHealth('30k-variable /jsonsat', '/api/v1/jsonsat', bodies)
    answers.forEach((res, n) => {
      expect(res.status, JSON.stringify(res.body.refuse)).toBe(200)
      const data = res.body.data
      expect(data).toMatchObject({ status: 'SAT', vars: 29_991, verified: true })
      expect(data.model).toHaveLength(29_991)
      expect(data.model.every((literal: number, i: number) => literal === i + 1)).toBe(true)
      expect(Object.keys(data.assignment)).toEqual([`n${n}`, ...manyVars(29_990).map((v) => v.var)])
      expect(Object.values(data.assignment).every((value) => value === true)).toBe(true)
    })
    expect(health.failures).toBe(0)
  })
})

describe('wide members sent as text', () => {
  it('/diff refuses a side nested deeper than its limit where it parses it (the mill), as it did on the loop', async () => {
    const deep = `${'{"d":'.repeat(300)}1${'}'.repeat(300)}`
    const pad = JSON.stringify(Object.fromEntries(Object.entries(wideObject).slice(0, 8_000))) // over 64 KiB: parsed in the mill
    const res = await postText('/api/v1/diff', `{"a":{"deep":${deep},"pad":${pad}},"b":{},"mode":"json"}`)
    expect(res.status, res.text.slice(0, 300)).toBe(422)
    expect(JSON.parse(res.text).refuse).toMatchObject({ code: 'over_limit', reason: 'a is nested deeper than the limit of 256 levels' })
  })

  it('/quiz checks it in the mill as /jsonsat solves it: the falsified conjunct named by its path', async () => {
    const formula = { and: [...manyVars(29_990), { not: { var: 'v7' } }] }
    const res = await postText('/api/v1/quiz', JSON.stringify({ formula, assignment: { v7: true }, max_listed: 3 }))
    expect(res.status, res.text.slice(0, 300)).toBe(200)
    const data = JSON.parse(res.text).data
    expect(data).toMatchObject({ satisfied: false, checked: 'formula', parts: 29_991 })
    expect(JSON.stringify(data)).toContain('formula.and[29990]')
  })
})
