import { afterEach, describe, expect, it } from 'vitest'
import { createMill, type Mill } from './pool.js'

let mill: Mill | undefined
afterEach(async () => {
  await mill?.close()
  mill = undefined
})

const rows = (length: number) => JSON.stringify(Array.from({ length }, (_, i) => ({ n: i, label: `row ${i}`, on: i % 2 === 0 })))

describe("a mill worker's heap", () => {
  it("gives back a large task's garbage once small tasks follow it", async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    const canonical = (json: string) => mill!.run('access.canonical_json', { json, maxDepth: 64, partChars: 1 << 20 }, { timeoutMs: 60_000, owner: null })
    await canonical(rows(10))
    const idle = mill.memory!().heap_bytes
    // ~30 MB of JSON: its parse and canonical text take a few hundred MB of heap, none of it live once answered.
    await canonical(rows(500_000))
    const afterLarge = mill.memory!().heap_bytes
    const heaps: number[] = []
    for (let i = 0; i < 20; i++) {
      await canonical(rows(100))
      heaps.push(mill.memory!().heap_bytes)
    }
    const mib = (b: number) => (b / 2 ** 20).toFixed(0)
    // A worker that never collects between tasks keeps the large task's heap for as long as only small ones follow.
    expect(heaps.at(-1), `heap: idle ${mib(idle)} MiB, after the large task ${mib(afterLarge)}, then ${heaps.map(mib).join(' ')}`)
      .toBeLessThan(idle + 64 * 2 ** 20)
  }, 120_000)
})
