// The bars cache is bounded by bytes (BARS_CACHE_BYTES): two large datasets stay hot together instead of evicting
// each other (issue #13 item 3: every backtest re-read 0.8 s of rows when a 1.5M-bar limit held only one of two).
import { describe, expect, it } from 'vitest'
import type { Bars } from '../engines/trading/types.js'
import { createBarsCache } from './bars-cache.js'
import type { DatasetRow, TradingRepository } from './repository.js'

const barsOf = (n: number): Bars => {
  const column = () => new Float64Array(n).fill(1)
  return { ts: Float64Array.from({ length: n }, (_, i) => i), open: column(), high: column(), low: column(), close: column(), volume: column() }
}

function countingRepo(sizes: Record<number, number>) {
  const loads: number[] = []
  const repo = { loadBars: async (id: number) => (loads.push(id), barsOf(sizes[id]!)) } as unknown as TradingRepository
  return { repo, loads }
}
const dataset = (id: number) => ({ id, sha256: `sha-${id}` }) as DatasetRow

describe('bars cache', () => {
  it('keeps two 880k-bar datasets hot within 256 MiB: each is read from the store once', async () => {
    const { repo, loads } = countingRepo({ 1: 880_000, 2: 880_000 })
    const cache = createBarsCache(repo, 256 * 2 ** 20)
    for (let round = 0; round < 5; round++) for (const id of [1, 2]) expect((await cache.get(dataset(id), null)).ts.length).toBe(880_000)
    expect(loads).toEqual([1, 2])
  })

  it('reads a dataset once for requests that ask for it together', async () => {
    const { repo, loads } = countingRepo({ 1: 1000 })
    const cache = createBarsCache(repo, 2 ** 20)
    const answers = await Promise.all([cache.get(dataset(1), null), cache.get(dataset(1), null), cache.get(dataset(1), { from: 10, to: 19 })])
    expect(answers.map((bars) => bars.ts.length)).toEqual([1000, 1000, 10])
    expect(loads).toEqual([1])
  })

  it('answers a range as views of the cached bars, not a copy', async () => {
    const { repo } = countingRepo({ 1: 1000 })
    const cache = createBarsCache(repo, 2 ** 20)
    const whole = await cache.get(dataset(1), null)
    const part = await cache.get(dataset(1), { from: 10, to: 19 })
    expect(Array.from(part.ts)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19])
    for (const column of ['ts', 'open', 'high', 'low', 'close', 'volume'] as const) expect(part[column].buffer).toBe(whole[column].buffer)
  })

  it('evicts the least recently used dataset once the bytes are spent', async () => {
    const { repo, loads } = countingRepo({ 1: 1000, 2: 1000, 3: 1000 })
    const cache = createBarsCache(repo, 2 * 1000 * 48) // room for two
    for (const id of [1, 2, 1, 3, 1, 2]) await cache.get(dataset(id), null)
    expect(loads).toEqual([1, 2, 3, 2]) // 3 evicted 2 (least recently used), not 1
  })
})
