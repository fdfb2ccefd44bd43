// The in-process queue hands a job run in this process the input value it was submitted with; a job recovered after a
// restart reads its input back from the stored parts.
import { JsonBytes } from '../json/bytes.js'
import { afterAll, describe, expect, it } from 'vitest'
import { systemClock } from '../sched/clock.js'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import type { Store } from '../store/index.js'
import { createLocalJobQueue } from './local-queue.js'

const asData = (answer: unknown): unknown => (answer instanceof JsonBytes ? answer.value() : answer)

const stores = testStores()
afterAll(() => stores.cleanup())

const queueOn = (store: Store) =>
  createLocalJobQueue({ store, clock: systemClock, concurrency: 1, maxQueued: 10, retentionMs: 60_000, maxRunMs: 10_000 })

describe.each(TEST_BACKENDS)('local job queue on %s', (backend) => {
  it('runs a job submitted here with the very value submitted, and a recovered one with its stored input', async () => {
    const store = await stores.open(backend)
    const input = { dimacs: 'p cnf 1 1\n1 0\n', nested: [{ a: 1 }] }
    const seen: unknown[] = []
    const echo = async (value: unknown) => {
      seen.push(value)
      return JsonBytes.of('{"ok":true}')
    }

    const here = queueOn(store)
    here.define('echo', echo)
    await here.start()
    const { job } = await here.submit({ op: 'echo', surface: 'caller', owner: 'admin', input })
    // In hand when the waiter came first; the stored text when the job was final before (a row read).
    const settled = await here.settled(job.id)
    expect(settled.ok && asData(settled.result)).toEqual({ ok: true })
    expect(seen[0]).toBe(input) // not read back and parsed
    await here.close()

    // A process that stored the job and stopped before running it (never started): the next one reads the parts.
    const before = queueOn(store)
    before.define('echo', echo)
    const stored = await before.submit({ op: 'echo', surface: 'caller', owner: 'admin', input })
    await before.close()
    const after = queueOn(store)
    after.define('echo', echo)
    await after.start()
    expect(await after.settled(stored.job.id)).toMatchObject({ ok: true })
    expect(seen[1]).toEqual(input)
    expect(seen[1]).not.toBe(input)
    await after.close()
  })
})
