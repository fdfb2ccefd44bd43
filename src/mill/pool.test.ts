import { readdirSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { createMill, type Mill } from './pool.js'
import { Refusal } from '../http/refusal.js'

let mill: Mill | undefined
afterEach(async () => {
  await mill?.close()
  mill = undefined
})

describe('the mill', () => {
  it('runs a task in a worker and reports the worker live', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    const result = await mill.run('mill.spin', { ms: 5 }, { timeoutMs: 5000, owner: null })
    expect(result.stopped_by_deadline).toBe(false)
    const agents = mill.agents()
    expect(agents).toHaveLength(1)
    expect(agents[0]!.tasks_done).toBe(1)
    expect(agents[0]!.state).toBe('idle')
  })

  it('starts no worker before the first task, then keeps one warm', async () => {
    mill = createMill({ threads: 2, maxQueue: 4 })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(mill.agents()).toHaveLength(0)
    expect(mill.memory!()).toEqual({ workers: 0, heap_bytes: 0 })
    expect(mill.stats()).toMatchObject({ queue_size: 0, running: 0, completed: 0 })
    await mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null })
    expect(mill.agents()).toHaveLength(1)
    expect(mill.memory!().workers).toBe(1)
    expect(mill.memory!().heap_bytes).toBeGreaterThan(0)
    expect(mill.stats().completed).toBe(1)
  })

  it('counts busy time into utilisation, per worker and for the pool', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    await mill.run('mill.spin', { ms: 200 }, { timeoutMs: 5000, owner: null })
    const [agent] = mill.agents()
    expect(agent!.utilization).toBeGreaterThan(0)
    expect(agent!.utilization).toBeLessThanOrEqual(1)
    expect(mill.stats().utilization).toBeGreaterThan(0)
    expect(mill.stats().utilization).toBeLessThanOrEqual(agent!.utilization + 1e-9)
  })

  // /proc/<pid>/task/<tid>/stat field 19 is the thread's nice value (proc(5)).
  it.skipIf(process.platform !== 'linux')('lowers the priority of its worker threads only, never the event loop', async () => {
    const niceOf = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])
    const before = new Set(readdirSync('/proc/self/task'))
    const own = niceOf(String(process.pid))
    mill = createMill({ threads: 1, maxQueue: 4, nice: own + 7 })
    await mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null })
    const added = readdirSync('/proc/self/task').filter((tid) => !before.has(tid)).map(niceOf)
    expect(added).toContain(Math.min(19, own + 7))
    expect(niceOf(String(process.pid))).toBe(own)
  })

  it('closes at once with a task still running, failing it (piscina\'s close waited up to 30 s for it, then threw)', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    const task = mill.run('mill.hang', { ms: 20_000 }, { timeoutMs: 60_000, owner: null })
    const outcome = task.then(() => 'answered', () => 'failed')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await mill.close()
    // Before, close() waited for the 20 s task to finish (and answer) before ending its worker.
    expect(await outcome).toBe('failed')
    mill = undefined
  })

  it('gives the task its soft deadline', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    const result = await mill.run('mill.spin', { ms: 60_000 }, { timeoutMs: 50, owner: null })
    expect(result.stopped_by_deadline).toBe(true)
  })

  it('stops a task that ignores its deadline and answers timeout; the pool keeps working', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    const err = await mill.run('mill.hang', { ms: 60_000 }, { timeoutMs: 20, op: 'probe', owner: null }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Refusal)
    expect((err as Refusal).code).toBe('timeout')
    expect(mill.stats().timeouts).toBe(1)
    await expect(mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null })).resolves.toBeTruthy()
  })

  it('refuses with occupied once the queue is full, and reports saturation', async () => {
    mill = createMill({ threads: 1, maxQueue: 1 })
    const running = mill.run('mill.spin', { ms: 300 }, { timeoutMs: 5000, owner: null })
    const queued = mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null })
    await new Promise((r) => setTimeout(r, 50))
    expect(mill.isSaturated()).toBe(true)
    const err = await mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null }).catch((e: unknown) => e)
    expect((err as Refusal).code).toBe('occupied')
    expect((err as Refusal).options.retryAfterS).toBeGreaterThan(0)
    await Promise.all([running, queued])
    expect(mill.isSaturated()).toBe(false)
  })

  it('holds one owner to its share of tasks outside jobs; other owners and the host\'s own work still get in', async () => {
    const shared = createMill({ threads: 1, maxQueue: 8, perOwner: 2 })
    mill = shared
    const mine = [0, 1].map(() => shared.run('mill.spin', { ms: 200 }, { timeoutMs: 5000, owner: 'client:a' }))
    const err = await shared.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: 'client:a' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Refusal)
    expect((err as Refusal).code).toBe('occupied')
    expect((err as Refusal).options.hints).toEqual({ limit: 'JOBS_PER_CLIENT', value: 2 })
    await expect(shared.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: 'client:b' })).resolves.toBeTruthy()
    await expect(shared.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null })).resolves.toBeTruthy()
    await Promise.all(mine)
    // Its tasks ended: its share is whole again.
    await expect(shared.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: 'client:a' })).resolves.toBeTruthy()
  })

  it('keeps a worker that heavy work never takes: a body\'s parse is answered while heavy work holds every other', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    let settled = 0
    const heavy = [0, 1].map(() => mill!.run('mill.hang', { ms: 60_000 }, { timeoutMs: 60_000, owner: null }).finally(() => settled++).catch(() => 'failed'))
    await new Promise((r) => setTimeout(r, 100))
    // One heavy task runs, the other waits for it, not for the spare worker.
    expect(mill.stats()).toMatchObject({ running: 1, queue_size: 1 })
    const parsed = await mill.run('body.parse', { blocks: [Buffer.from('{"a":[1,2]}')], format: { kind: 'json', maxDepth: 4, maxValues: 10 } },
      { timeoutMs: 5000, owner: null })
    expect(parsed).toEqual({ ok: true, value: { a: [1, 2] }, depth: 2 })
    // So is any task run as short (a body read for a client that may not have heavy work done)...
    expect(await mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null, short: true })).toBeDefined()
    expect(settled).toBe(0)
    // ...where the same task run as heavy work waits its turn.
    const inLine = mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null })
    expect(await Promise.race([inLine.then(() => 'ran'), new Promise((r) => setTimeout(() => r('waiting'), 300))])).toBe('waiting')
    inLine.catch(() => undefined)
    await mill.close()
    mill = undefined
    expect(await Promise.all(heavy)).toEqual(['failed', 'failed'])
  })

  it('refuses a request\'s task that waited its line\'s deadline for a worker, and gives its share back', async () => {
    mill = createMill({ threads: 1, maxQueue: 4, perOwner: 1, lineWaitMs: 300 })
    const running = mill.run('mill.hang', { ms: 20_000 }, { timeoutMs: 60_000, owner: null }).catch((e: unknown) => e)
    // The host's own work waits on, past the request's deadline.
    const hosts = mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: null }).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 100))
    const err = await mill.run('mill.spin', { ms: 1 }, { timeoutMs: 60_000, op: 'probe', owner: 'client:a' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Refusal)
    expect(err).toMatchObject({ code: 'occupied', options: { op: 'probe', retryAfterS: 1 } })
    expect(mill.stats()).toMatchObject({ running: 1, queue_size: 1, rejected_full: 1 })
    // Its share (one task) is given back: the same client's next task is let into the line again.
    const again = mill.run('mill.spin', { ms: 1 }, { timeoutMs: 60_000, owner: 'client:a' }).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 50))
    expect(mill.stats().queue_size).toBe(2)
    await mill.close()
    mill = undefined
    expect(await again).toMatchObject({ code: 'occupied' })
    expect(await hosts).toMatchObject({ code: 'occupied' })
    expect(await running).toBeInstanceOf(Error)
  })

  it('fails the heavy tasks still waiting for a worker when it closes', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    const running = mill.run('mill.hang', { ms: 20_000 }, { timeoutMs: 60_000, owner: null }).catch((e: unknown) => e)
    const waiting = mill.run('mill.spin', { ms: 1 }, { timeoutMs: 5000, owner: 'client:a' }).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 100))
    await mill.close()
    mill = undefined
    expect(await waiting).toMatchObject({ code: 'occupied' })
    expect(await running).toBeInstanceOf(Error)
  })

  it('counts failures per worker', async () => {
    mill = createMill({ threads: 1, maxQueue: 4 })
    await expect(mill.run('mill.fail', {}, { timeoutMs: 5000, owner: null })).rejects.toThrow(/always throws/)
    expect(mill.agents()[0]!.failures).toBe(1)
  })
})

// Checked by `npm run typecheck`, never run: the task table types both ends of `run`, so a wrong input or a wrong
// reading of the answer does not compile.
export function typedTasks(m: Mill) {
  // @ts-expect-error mill.spin takes { ms: number }
  void m.run('mill.spin', { seconds: 1 }, { timeoutMs: 1, owner: null })
  // @ts-expect-error there is no such task
  void m.run('mill.nope', {}, { timeoutMs: 1, owner: null })
  return m.run('mill.spin', { ms: 1 }, { timeoutMs: 1, owner: null }).then((answer) => {
    const stopped: boolean = answer.stopped_by_deadline
    // @ts-expect-error mill.spin answers no such field
    void answer.elapsed
    return stopped
  })
}
