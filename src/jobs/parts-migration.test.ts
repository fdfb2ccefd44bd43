// Migration 0007 moves inputs and answers stored on job rows (0005) into job_parts, on both databases: a database
// written before it reads every job's input and answer the same way after it.
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKENDS } from '../store/test-backends.js'
import { acrossMigration, type Cleanup } from '../store/test-migrations.js'
import { createJobRepository } from './repository.js'

const cleanups: Cleanup[] = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe.each(TEST_BACKENDS)('migration 0007 on %s', (dialect) => {
  it("moves each job's input and answer into its parts and drops the columns", async () => {
    const sql = await acrossMigration(dialect, '0007', async (old) => {
      const insert = `INSERT INTO jobs (id, op, surface, state, input, input_digest, result, created_at, finished_at, purged_at)
        VALUES (?, 'sat', 'caller', ?, ?, 'd', ?, 1000, ?, ?)`
      await old.run(insert, ['done', 'succeeded', '{"dimacs":"p cnf 1 1\\n1 0\\n"}', '{"sat":true}', 2000, null])
      await old.run(insert, ['waiting', 'queued', '[1,2]', null, null, null])
      await old.run(insert, ['purged', 'succeeded', null, null, 2000, 3000])
    }, cleanups)
    const repo = createJobRepository(sql)
    expect((await repo.input('done'))?.value()).toEqual({ dimacs: 'p cnf 1 1\n1 0\n' })
    expect((await repo.result('done'))?.value()).toEqual({ sat: true })
    expect((await repo.input('waiting'))?.value()).toEqual([1, 2])
    expect(await repo.result('waiting')).toBeNull()
    expect(await repo.input('purged')).toBeNull()
    expect(await repo.get('done')).toMatchObject({ state: 'succeeded', finishedAt: 2000 })
    await expect(sql.get('SELECT input FROM jobs')).rejects.toThrow(/input/)
    await expect(sql.get('SELECT result FROM jobs')).rejects.toThrow(/result/)
  })
})

describe.each(TEST_BACKENDS)('migration 0073 on %s', (dialect) => {
  it("keeps each job's input and answer, their text now stored as its UTF-8 bytes", async () => {
    const answer = '{"text":"é😀 \\u2028 \\"q\\""}'
    const sql = await acrossMigration(dialect, '0073', async (old) => {
      await old.run(`INSERT INTO jobs (id, op, surface, owner, state, input_digest, created_at, finished_at)
        VALUES ('done', 'sat', 'caller', 'o', 'succeeded', 'd', 1000, 2000)`)
      const part = 'INSERT INTO job_parts (job_id, kind, seq, created_at, text) VALUES (?, ?, ?, 1000, ?)'
      await old.run(part, ['done', 'input', 0, '{"dimacs":"p cnf 1 1\\n'])
      await old.run(part, ['done', 'input', 1, '1 0\\n"}'])
      // A part cut inside a surrogate pair's characters is not possible in text: cut between characters.
      await old.run(part, ['done', 'result', 0, answer.slice(0, 12)])
      await old.run(part, ['done', 'result', 1, answer.slice(12)])
    }, cleanups)
    const repo = createJobRepository(sql)
    expect((await repo.input('done'))?.value()).toEqual({ dimacs: 'p cnf 1 1\n1 0\n' })
    const result = await repo.result('done')
    expect(result?.text()).toBe(answer)
    expect(Buffer.concat(result!.chunks)).toEqual(Buffer.from(answer))
    await expect(sql.get('SELECT text FROM job_parts')).rejects.toThrow(/text/)
  })
})
