import { afterEach, describe, expect, it } from 'vitest'
import { createMill, type Mill } from './pool.js'
import type { ProgressSnapshot } from './progress.js'
import { TaskCancelled, taskScope } from './scope.js'
import { idleWorkers, runSplit, sumProgress } from './split.js'

let mill: Mill | undefined
afterEach(async () => {
  await mill?.close()
  mill = undefined
})

const snapshot = (over: Partial<ProgressSnapshot>): ProgressSnapshot =>
  ({ writes: 1, phase: 'searching', done: null, total: null, counters: {}, ...over })

describe('a split across the mill', () => {
  it('runs one task per payload on the idle workers and answers in payload order', async () => {
    mill = createMill({ threads: 2, maxQueue: 4 })
    const results = await runSplit(mill, 'mill.spin', [{ ms: 150 }, { ms: 60 }], { timeoutMs: 5000, owner: null })
    expect(results.map((r) => r.stopped_by_deadline)).toEqual([false, false])
    expect(results[0]!.spun_ms).toBeGreaterThanOrEqual(150)
    expect(results[1]!.spun_ms).toBeGreaterThanOrEqual(60)
    expect(mill.stats().completed).toBe(2)
  })

  it('counts the workers no task holds or waits for: started ones as warm, the rest the pool may start as cold', async () => {
    mill = createMill({ threads: 3, maxQueue: 4 })
    await mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null })
    expect(idleWorkers(mill)).toEqual({ warm: 1, cold: 2 })
    const busy = [mill.run('mill.spin', { ms: 100 }, { timeoutMs: 5000, owner: null })]
    expect(idleWorkers(mill)).toEqual({ warm: 0, cold: 2 })
    busy.push(mill.run('mill.spin', { ms: 100 }, { timeoutMs: 5000, owner: null }), mill.run('mill.spin', { ms: 100 }, { timeoutMs: 5000, owner: null }))
    expect(idleWorkers(mill)).toEqual({ warm: 0, cold: 0 })
    await Promise.all(busy)
    // the queued tasks started workers of their own (piscina hands a queued task to the worker it starts for it)
    expect(mill.agents().length).toBeGreaterThan(1)
    expect(idleWorkers(mill)).toEqual({ warm: mill.agents().length, cold: 3 - mill.agents().length })
  })

  it('inside a job, reports the tasks as one: progress summed, the last snapshot at the full total', async () => {
    mill = createMill({ threads: 2, maxQueue: 4 })
    const seen: ProgressSnapshot[] = []
    const signal = new AbortController().signal
    await taskScope.run({ signal, onProgress: (s) => seen.push(s) }, () =>
      runSplit(mill!, 'mill.spin', [{ ms: 300 }, { ms: 400 }], { timeoutMs: 5000, owner: null }))
    const last = seen.at(-1)!
    expect(last.total).toBe(700)
    expect(last.phase).toBe('searching')
    expect(last.done).toBeGreaterThan(400)
    expect(seen.every((s) => s.total === null || s.total === 700)).toBe(true)
  })

  it("a job's cancel reaches every task; the split answers only once all have ended", async () => {
    mill = createMill({ threads: 2, maxQueue: 4 })
    const controller = new AbortController()
    const split = taskScope.run({ signal: controller.signal, onProgress: () => {} }, () =>
      runSplit(mill!, 'mill.spin', [{ ms: 30_000 }, { ms: 30_000 }], { timeoutMs: 60_000, owner: null }))
    setTimeout(() => controller.abort(), 100)
    await expect(split).rejects.toBeInstanceOf(TaskCancelled)
    expect(mill.stats().running).toBe(0)
  })

  it('sums snapshots: done and counters added, the total unknown until every task gave one', () => {
    expect(sumProgress([snapshot({ done: 3, total: 10, counters: { configs_done: 3 } }), null]))
      .toMatchObject({ done: 3, total: null, counters: { configs_done: 3 } })
    expect(sumProgress([
      snapshot({ writes: 4, done: 3, total: 10, counters: { configs_done: 3 } }),
      snapshot({ writes: 2, phase: 'scoring', done: 5, total: 12, counters: { configs_done: 5, folds_done: 1 } }),
    ])).toEqual({ writes: 6, phase: 'searching', done: 8, total: 22, counters: { configs_done: 8, folds_done: 1 } })
  })
})
