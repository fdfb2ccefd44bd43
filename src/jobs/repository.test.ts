// The job repository over Sql, on SQLite and PostgreSQL: one job per Idempotency-Key, state changes that happen once,
// inputs and answers in parts, purge and paging.
import { afterAll, describe, expect, it } from 'vitest'
import { JsonBytes } from '../json/bytes.js'
import { TEST_BACKENDS, testStores } from '../store/test-backends.js'
import type { Sql } from '../store/sql.js'
import { turnsDuring } from '../store/test-turns.js'
import { ORPHAN_AFTER_MS } from './parts.js'
import { createJobRepository, ID_PREFIX_SQL, type NewJob } from './repository.js'

const stores = testStores()

const partCount = async (sql: Sql, id: string, kind: 'input' | 'result'): Promise<number> =>
  Number((await sql.get<{ count: number | string }>('SELECT COUNT(*) AS count FROM job_parts WHERE job_id = ? AND kind = ?', [id, kind]))!.count)
/** An answer as a run hands it over: written as its route writes it. */
const written = (value: unknown): JsonBytes => JsonBytes.of(JSON.stringify(value))

const progress = { fraction: 1, phase: 'succeeded', done: 1, total: 1, eta_s: null, counters: {} }
afterAll(() => stores.cleanup())

const job = (id: string, key: string | null = null): NewJob => ({
  id, op: 'sat', surface: 'caller', owner: 'client:127.0.0.1', inputParts: ['{"n":1}'], inputDigest: `digest-${id}`, idempotencyKey: key, createdAt: 1_000,
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
    expect(winners[0]).not.toHaveProperty('input') // read apart: a row is read on every poll
    expect((await repo.byKey('caller', 'client:127.0.0.1', 'k'))?.id).toBe(winners[0]!.id)
    expect(await repo.insert({ ...job('c', 'k'), surface: 'trading' })).toMatchObject({ id: 'c', surface: 'trading' })
    // Keys are namespaced per owner: another's same key is another job, and byKey never finds the first owner's.
    expect(await repo.insert({ ...job('d', 'k'), owner: 'grant:bob' })).toMatchObject({ id: 'd', owner: 'grant:bob' })
    expect((await repo.byKey('caller', 'grant:bob', 'k'))?.id).toBe('d')
  })

  it("keeps the input of the race's winner only: the loser removes the parts it wrote", async () => {
    const { sql } = await stores.open(backend)
    const repo = createJobRepository(sql)
    const parts = ['{"dimacs":"', 'c pad\\n'.repeat(3), '"}']
    expect(await repo.insert({ ...job('a', 'k'), inputParts: parts })).not.toBeNull()
    expect(await repo.insert({ ...job('b', 'k'), inputParts: parts })).toBeNull()
    expect(await partCount(sql, 'a', 'input')).toBe(3)
    expect(await partCount(sql, 'b', 'input')).toBe(0)
    expect((await repo.input('a'))?.value()).toEqual({ dimacs: 'c pad\n'.repeat(3) })
  })

  it('starts a queued job once and finishes it once, answering the changed row', async () => {
    const repo = await open()
    await repo.insert(job('a'))
    expect(await repo.start('a', 2_000)).toMatchObject({ state: 'running', attempts: 1, startedAt: 2_000 })
    expect((await repo.input('a'))?.value()).toEqual({ n: 1 })
    expect(await repo.start('a', 2_001)).toBeNull()
    const final = await repo.finish('a', 'succeeded', { result: written({ ok: 1 }), progress, now: 3_000 })
    expect(final).toMatchObject({ state: 'succeeded', finishedAt: 3_000, progress })
    expect(await repo.finish('a', 'cancelled', { progress, now: 3_001 })).toBeNull()
    expect((await repo.result('a'))?.value()).toEqual({ ok: 1 })
    expect(await repo.requeue('a')).toBe(false)
    expect(await repo.countByState()).toEqual([{ state: 'succeeded', count: 1 }])
    expect(await repo.finishedSince(3_000)).toBe(1)
  })

  it('writes a large answer in parts with loop turns between, and reads it back whole', async () => {
    const { sql } = await stores.open(backend)
    const repo = createJobRepository(sql)
    await repo.insert(job('a'))
    const result = { model: 'x\u{1F600}'.repeat(400_000), sat: true } // 1.2 M characters: five parts
    const { value: final, turns } = await turnsDuring(() => repo.finish('a', 'succeeded', { result: written(result), progress, now: 3_000 }))
    expect(final).toMatchObject({ state: 'succeeded' })
    expect(await partCount(sql, 'a', 'result')).toBeGreaterThanOrEqual(5)
    expect(turns).toBeGreaterThanOrEqual(4)
    expect((await repo.result('a'))?.value()).toEqual(result)
  })

  it('writes no answer for a job already final, and replaces one a finish cut short left behind', async () => {
    const { sql } = await stores.open(backend)
    const repo = createJobRepository(sql)
    await repo.insert(job('a'))
    await repo.insert(job('b'))
    // A finish that died between its parts and its UPDATE: three stale parts of another answer.
    for (const seq of [0, 1, 2]) {
      await sql.run("INSERT INTO job_parts (job_id, kind, seq, created_at, content) VALUES ('b', 'result', ?, 1, ?)", [seq, Buffer.from(seq === 0 ? '[' : '0]')])
    }
    await repo.finish('a', 'cancelled', { refuse: { code: 'conflict', reason: 'x', http_status: 409 }, progress, now: 3_000 })
    expect(await repo.finish('a', 'succeeded', { result: written({ late: true }), progress, now: 3_001 })).toBeNull()
    expect(await partCount(sql, 'a', 'result')).toBe(0)
    expect(await repo.finish('b', 'succeeded', { result: written({ ok: 2 }), progress, now: 3_002 })).toMatchObject({ state: 'succeeded' })
    expect(await partCount(sql, 'b', 'result')).toBe(1)
    expect((await repo.result('b'))?.value()).toEqual({ ok: 2 })
  })

  it('purges the parts of purged jobs and, after an hour, parts no job row came for', async () => {
    const { sql } = await stores.open(backend)
    const repo = createJobRepository(sql)
    await repo.insert({ ...job('a'), inputParts: ['[1,', '2]'] })
    await repo.finish('a', 'succeeded', { result: written([3]), progress, now: 5_000 })
    // A crash between the parts and the row: parts of a job that never was.
    await sql.run("INSERT INTO job_parts (job_id, kind, seq, created_at, content) VALUES ('ghost', 'input', 0, 5000, ?)", [Buffer.from('1')])
    expect(await repo.purge(5_000 + 60_000, 60_000)).toBe(1)
    expect(await partCount(sql, 'a', 'input') + await partCount(sql, 'a', 'result')).toBe(0)
    expect(await repo.input('a')).toBeNull()
    expect(await repo.result('a')).toBeNull()
    expect(await partCount(sql, 'ghost', 'input')).toBe(1) // younger than an hour: its row may still be on the way
    await repo.purge(5_000 + ORPHAN_AFTER_MS, 60_000)
    expect(await partCount(sql, 'ghost', 'input')).toBe(0)
  })

  it('looks for orphans a bounded slice of part keys at a time, leaving parts of live jobs alone', async () => {
    const { sql } = await stores.open(backend)
    const repo = createJobRepository(sql)
    await repo.insert(job('live-m'))
    for (let i = 0; i < 300; i++) {
      await sql.run("INSERT INTO job_parts (job_id, kind, seq, created_at, content) VALUES (?, 'input', 0, 0, ?)", [`ghost-${String(i).padStart(3, '0')}`, Buffer.from('1')])
    }
    const left = async () => Number((await sql.get<{ count: number | string }>('SELECT COUNT(*) AS count FROM job_parts'))!.count)
    await repo.purge(ORPHAN_AFTER_MS, 60_000)
    expect(await left()).toBe(301 - 256) // the first 256 keys: all ghosts
    await repo.purge(ORPHAN_AFTER_MS + 1, 60_000)
    expect(await left()).toBe(1)
    expect((await repo.input('live-m'))?.value()).toEqual({ n: 1 })
  })

  it('pages newest first with filters and purges answers past retention, keeping a tombstone', async () => {
    const { sql } = await stores.open(backend)
    const repo = createJobRepository(sql)
    for (const id of ['a', 'b', 'c']) await repo.insert(job(id))
    const failed = { fraction: null, phase: 'failed', done: null, total: null, eta_s: null, counters: {} }
    await repo.finish('b', 'failed', { refuse: { code: 'internal', reason: 'x', http_status: 500 }, progress: failed, now: 5_000 })
    const first = await repo.page({}, null, 2)
    expect(first.map((row) => row.job.id)).toEqual(['c', 'b', 'a'])
    expect((await repo.page({}, [first[1]!.n], 2)).map((row) => row.job.id)).toEqual(['a'])
    expect((await repo.page({ state: 'failed' }, null, 5)).map((row) => row.job.id)).toEqual(['b'])
    expect(await repo.purge(5_000 + 60_000, 60_000)).toBe(1)
    expect(await repo.get('b')).toMatchObject({ purgedAt: 65_000, state: 'failed' })
    expect(await partCount(sql, 'b', 'input')).toBe(0)
    expect((await repo.page({}, null, 5)).map((row) => row.job.id)).toEqual(['c', 'a'])
    await repo.purge(5_000 + 600_000, 60_000)
    expect(await repo.get('b')).toBeNull()
  })
})

describe.each(TEST_BACKENDS)('job id prefixes on %s', (backend) => {
  it('finds the owner\'s ids a prefix starts, dashes included, and no one else\'s', async () => {
    const repo = createJobRepository((await stores.open(backend)).sql)
    const ids = ['abcd-0001', 'abcd-0002', 'abce-0001', 'abcc-ffff', 'abcd0000']
    for (const id of ids) await repo.insert(job(id))
    await repo.insert({ ...job('abcd-9999'), owner: 'grant:other' })
    expect(await repo.idsStartingWith('abcd', 10, 'client:127.0.0.1')).toEqual(['abcd-0001', 'abcd-0002', 'abcd0000'])
    expect(await repo.idsStartingWith('abcd-', 10, 'client:127.0.0.1')).toEqual(['abcd-0001', 'abcd-0002'])
    expect(await repo.idsStartingWith('abcf', 10, 'client:127.0.0.1')).toEqual([])
    expect(await repo.idsStartingWith('abcd', 10, null)).toEqual(['abcd-0001', 'abcd-0002', 'abcd-9999', 'abcd0000'])
    expect(await repo.idsStartingWith('abc', 2, 'client:127.0.0.1')).toEqual(['abcc-ffff', 'abcd-0001'])
  })
})

// A prefix lookup is anonymous and synchronous on SQLite: with 110,000 rows kept (10 × JOB_RETENTION_MAX_JOBS of purged
// ones), the LIKE it was scanned them all, 6.5 ms of the event loop a request; a range of the id index reads a few.
it('a prefix lookup on SQLite searches a range of the id index, never scans the table', async () => {
  const { sql } = await stores.open('sqlite')
  const plan = await sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${ID_PREFIX_SQL}`, { from: 'abcd', to: 'abce', owner: 'client:x', limit: 11 })
  const details = plan.map((row) => row.detail).join('; ')
  expect(details).toMatch(/SEARCH jobs USING INDEX \S+ \(id>\? AND id<\?\)/)
  expect(details).not.toMatch(/SCAN jobs/)
})
