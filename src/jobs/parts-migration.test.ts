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
    expect(await repo.input('done')).toEqual({ dimacs: 'p cnf 1 1\n1 0\n' })
    expect((await repo.result('done'))?.value()).toEqual({ sat: true })
    expect(await repo.input('waiting')).toEqual([1, 2])
    expect(await repo.result('waiting')).toBeNull()
    expect(await repo.input('purged')).toBeNull()
    expect(await repo.get('done')).toMatchObject({ state: 'succeeded', finishedAt: 2000 })
    await expect(sql.get('SELECT input FROM jobs')).rejects.toThrow(/input/)
    await expect(sql.get('SELECT result FROM jobs')).rejects.toThrow(/result/)
  })
})
