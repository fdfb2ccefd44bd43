// The job repository over Sql, on SQLite and PostgreSQL: one job per Idempotency-Key, state changes that happen once,
// purge and paging.
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import { createJobRepository, type NewJob } from './repository.js'

const stores = testStores()
afterAll(() => stores.cleanup())

const job = (id: string, key: string | null = null): NewJob => ({
  id, op: 'sat', surface: 'caller', inputText: '{"n":1}', inputDigest: `digest-${id}`, idempotencyKey: key, createdAt: 1_000,
})

describe.each(TEST_BACKENDS)('job repository on %s', (backend) => {
  const open = async () => createJobRepository((await stores.open(backend)).sql)

  it('stores one job per surface and Idempotency-Key: the second insert of a key stores nothing', async () => {
    const repo = await open()
    // Racing (on PostgreSQL over two pooled connections): whichever lands first is the job, the other stores nothing.
    const inserted = await Promise.all([repo.insert(job('a', 'k')), repo.insert(job('b', 'k'))])
    const winners = inserted.filter((row) => row !== null)
    expect(winners).toHaveLength(1)
    expect(winners[0]).toMatchObject({ state: 'queued', idempotencyKey: 'k', attempts: 0, createdAt: 1_000 })
    expect(winners[0]).not.toHaveProperty('input') // read by start alone: a row is read on every poll
    expect((await repo.byKey('caller', 'k'))?.id).toBe(winners[0]!.id)
    expect(await repo.insert({ ...job('c', 'k'), surface: 'trading' })).toMatchObject({ id: 'c', surface: 'trading' })
  })

  it('starts a queued job once and finishes it once, answering the changed row', async () => {
    const repo = await open()
    await repo.insert(job('a'))
    expect(await repo.start('a', 2_000)).toMatchObject({ job: { state: 'running', attempts: 1, startedAt: 2_000 }, input: { n: 1 } })
    expect(await repo.start('a', 2_001)).toBeNull()
    const progress = { fraction: 1, phase: 'succeeded', done: 1, total: 1, eta_s: null, counters: {} }
    const final = await repo.finish('a', 'succeeded', { result: { ok: 1 }, progress, now: 3_000 })
    expect(final).toMatchObject({ state: 'succeeded', finishedAt: 3_000, progress })
    expect(await repo.finish('a', 'cancelled', { progress, now: 3_001 })).toBeNull()
    expect(await repo.result('a')).toEqual({ ok: 1 })
    expect(await repo.requeue('a')).toBe(false)
    expect(await repo.countByState()).toEqual([{ state: 'succeeded', count: 1 }])
    expect(await repo.finishedSince(3_000)).toBe(1)
  })

  it('pages newest first with filters and purges answers past retention, keeping a tombstone', async () => {
    const { sql } = await stores.open(backend)
    const repo = createJobRepository(sql)
    for (const id of ['a', 'b', 'c']) await repo.insert(job(id))
    const progress = { fraction: null, phase: 'failed', done: null, total: null, eta_s: null, counters: {} }
    await repo.finish('b', 'failed', { refuse: { code: 'internal', reason: 'x', http_status: 500 }, progress, now: 5_000 })
    const first = await repo.page({}, null, 2)
    expect(first.map((row) => row.job.id)).toEqual(['c', 'b', 'a'])
    expect((await repo.page({}, [first[1]!.n], 2)).map((row) => row.job.id)).toEqual(['a'])
    expect((await repo.page({ state: 'failed' }, null, 5)).map((row) => row.job.id)).toEqual(['b'])
    expect(await repo.purge(5_000 + 60_000, 60_000)).toBe(1)
    expect(await repo.get('b')).toMatchObject({ purgedAt: 65_000, state: 'failed' })
    expect(await sql.get('SELECT input, result FROM jobs WHERE id = ?', ['b'])).toEqual({ input: null, result: null })
    expect((await repo.page({}, null, 5)).map((row) => row.job.id)).toEqual(['c', 'a'])
    await repo.purge(5_000 + 600_000, 60_000)
    expect(await repo.get('b')).toBeNull()
  })
})
