// Issue #13: a dataset's 500-bar page asked for by many connections at once, over a real socket with health and the
// loop watched. Each answer read its bars and serialised ~60 KB of JSON in one go, ~2 ms; the answers of one poll of the
// sockets ran back to back, so a burst of 30 held the loop's CPU 50-70 ms. The page is now written through its schema
// a part per turn, and each read reserves 1 MiB of the memory admission (src/plugins/memory-admission.ts): a page is
// bounded, so a burst of 30 from one client fits its share.
import { beforeAll, describe, expect, it } from 'vitest'
import { listeningTestApp } from '../helper.js'
import { burstsBesideHealth } from './bursts.js'
import { keepingBytes, pastStartReport } from './monitor.js'

const host = listeningTestApp()

const PARALLEL = 30
const ROUNDS = 3
const PAGE = '/api/v11/datasets/SYN-DAILY?limit=500'

describe('a 500-bar dataset page from many connections at once', () => {
  beforeAll(() => pastStartReport(host.app), 60_000)

  it(`${ROUNDS} bursts of ${PARALLEL}: the same page each time, none holding the loop past the bound`, async () => {
    const first = await keepingBytes(`${host.base}${PAGE}`)
    expect(first.status).toBe(200)
    expect(first.json().bars).toHaveLength(500)
    const texts = await burstsBesideHealth(host.base, PAGE, ROUNDS, PARALLEL)
    expect(texts).toEqual([first.bytes().toString()])
  })
})
