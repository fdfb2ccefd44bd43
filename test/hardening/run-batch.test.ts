// Issue #13: a /run batch of light jobs is dispatched a job per loop turn, over a real socket with health and the loop
// watched. Before, the batch's jobs ran back to back in one turn: 64 `openapi` jobs (each clones the document, ~6 ms)
// held the loop 350-530 ms of CPU, 64 `lexicon` jobs 50-70.
import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_BATCH } from '../../src/inputs/run.js'
import { listeningTestApp } from '../helper.js'
import { besideHealth, keepingBytes, pastStartReport } from './monitor.js'

const host = listeningTestApp()


const post = (path: string, body: unknown) => keepingBytes(`${host.base}${path}`, { body })

describe('a /run batch turns the loop between its jobs', () => {
  beforeAll(async () => {
    await pastStartReport(host.app)
    // The host document is built once, on the first read: over before anything is measured.
    expect((await post('/api/v1/run', { op: 'openapi' })).status).toBe(200)
  }, 60_000)

  it(`answers ${MAX_BATCH} openapi jobs, none holding the loop past the bound`, async () => {
    const batch = Array.from({ length: MAX_BATCH }, () => ({ op: 'openapi' }))
    const { value: ran, health } = await besideHealth(host.base, `/run of ${MAX_BATCH} openapi`, () => post('/api/v1/run', { batch }))
    expect(ran.status).toBe(200)
    const answer = ran.json().data
    // Every job ran; past RUN_BATCH_MAX_WEIGHT (16 MiB of answers' bytes) an answer becomes an over_limit refusal.
    expect(answer).toMatchObject({ mode: 'batch', stopped_early: false })
    expect(answer.results.map((r: { index: number }) => r.index)).toEqual(batch.map((_, i) => i))
    expect(answer.completed).toBeGreaterThan(MAX_BATCH / 2)
    for (const r of answer.results) {
      if (r.ok) expect(r.data.openapi).toBe('3.0.3')
      else expect(r.refuse).toMatchObject({ code: 'over_limit', hints: { limit: 'RUN_BATCH_MAX_WEIGHT' } })
    }
    expect(health.failures).toBe(0)
  })

  it('with stop_on_refusal, stops at the first refusal and still turns between jobs', async () => {
    const batch = [...Array.from({ length: 40 }, () => ({ op: 'openapi' })), { op: 'chat', input: {} }, { op: 'openapi' }]
    const { value: ran } = await besideHealth(host.base, '/run of 40 openapi, stop_on_refusal', () => post('/api/v1/run', { batch, stop_on_refusal: true }))
    expect(ran.json().data).toMatchObject({ completed: 40, refused: 1, stopped_early: true })
  })
})
