// Coalesced probes: callers during a run share it; a call after it settled runs the probe again.
import { describe, expect, it } from 'vitest'
import { coalesce } from './coalesce.js'

/** A probe whose runs are counted and settled by hand. */
function manualProbe() {
  const runs: Array<{ resolve(v: number): void; reject(e: Error): void }> = []
  const probe = () => new Promise<number>((resolve, reject) => { runs.push({ resolve, reject }) })
  return { runs, probe }
}

describe('coalesce', () => {
  it('two concurrent calls run one probe and get its answer', async () => {
    const { runs, probe } = manualProbe()
    const shared = coalesce(probe)
    const a = shared()
    const b = shared()
    expect(runs).toHaveLength(1)
    runs[0]!.resolve(7)
    expect(await Promise.all([a, b])).toEqual([7, 7])
  })

  it('a call started after the previous run settled runs the probe again', async () => {
    const { runs, probe } = manualProbe()
    const shared = coalesce(probe)
    const first = shared()
    runs[0]!.resolve(1)
    expect(await first).toBe(1)
    const second = shared()
    expect(runs).toHaveLength(2)
    runs[1]!.resolve(2)
    expect(await second).toBe(2)
  })

  it('a failed run is shared by its callers and not kept: the next call probes again', async () => {
    const { runs, probe } = manualProbe()
    const shared = coalesce(probe)
    const a = shared()
    const b = shared()
    runs[0]!.reject(new Error('down'))
    await expect(a).rejects.toThrow('down')
    await expect(b).rejects.toThrow('down')
    const c = shared()
    expect(runs).toHaveLength(2)
    runs[1]!.resolve(3)
    expect(await c).toBe(3)
  })

  it('a probe that throws before its first await is shared and cleared like any failure', async () => {
    let calls = 0
    const shared = coalesce(async () => {
      calls++
      throw new Error('at once')
    })
    await expect(Promise.all([shared(), shared()])).rejects.toThrow('at once')
    await expect(shared()).rejects.toThrow('at once')
    expect(calls).toBe(2)
  })
})
