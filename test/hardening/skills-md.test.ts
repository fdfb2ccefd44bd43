// Issue #13: /api/v1/skills.md asked for by many connections at once, over a real socket with health and the loop
// watched. Each answer built the Markdown of every operation (its input schema as JSON, per operation) on the loop: a
// burst of 30 held the loop's CPU 20-40 ms. The operations' part is built once per registry; the front matter (the
// occupancy it reports changes) per answer.
import { beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { burstsBesideHealth } from './bursts.js'
import { keepingBytes, pastStartReport } from './monitor.js'

const host = listeningTestApp()

const PARALLEL = 30
const ROUNDS = 3
const PATH = '/api/v1/skills.md'

describe('skills.md from many connections at once', () => {
  beforeAll(() => pastStartReport(host.app), 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: the same Markdown each time, none holding the loop past the bound`, async () => {
    const first = await keepingBytes(`${host.base}${PATH}`)
    expect(first.status).toBe(200)
    const texts = await burstsBesideHealth(host.base, PATH, ROUNDS, PARALLEL)
    expect(texts).toEqual([first.bytes().toString()])
  })
})
