// Migration 0007 moves inputs and answers stored on job rows (0005) into job_parts, on both databases: a database
// written before it reads every job's input and answer the same way after it.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openStore } from '../store/index.js'
import { listMigrations, migrationsDirOf } from '../store/migrate.js'
import { createPostgresPool, createPostgresSql, type PostgresSql } from '../store/postgres-sql.js'
import { migratePostgres } from '../store/postgres-store.js'
import type { Dialect, Sql } from '../store/sql.js'
import { TEST_BACKENDS } from '../store/test-backends.js'
import { createTestDatabase, type TestDatabase } from '../store/test-postgres.js'
import { createJobRepository } from './repository.js'

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** A folder with the dialect's migrations before 0007, byte for byte (so their checksums match the real ones). */
function migrationsBefore0007(dialect: Dialect): string {
  const dir = mkdtempSync(join(tmpdir(), 'ncm-parts-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  for (const { name } of listMigrations(migrationsDirOf(dialect))) {
    if (name < '0007') copyFileSync(join(migrationsDirOf(dialect), name), join(dir, name))
  }
  return dir
}

/** Migrates to 0006, runs `write` on it, then migrates to the end; answers the Sql of the migrated database. */
async function across0007(dialect: Dialect, write: (sql: Sql) => Promise<void>): Promise<Sql> {
  const before = migrationsBefore0007(dialect)
  if (dialect === 'sqlite') {
    const path = join(before, 'db.sqlite')
    const old = await openStore({ path, migrationsDir: before })
    await write(old.sql)
    await old.close()
    const store = await openStore({ path })
    cleanups.push(() => store.close())
    return store.sql
  }
  const database: TestDatabase = await createTestDatabase()
  const sql: PostgresSql = createPostgresSql(createPostgresPool({ connectionString: database.url, max: 2, connectionTimeoutMs: 5000 }))
  cleanups.push(() => database.drop(), () => sql.pool.end())
  await migratePostgres(sql, before)
  await write(sql)
  await migratePostgres(sql)
  return sql
}

describe.each(TEST_BACKENDS)('migration 0007 on %s', (dialect) => {
  it("moves each job's input and answer into its parts and drops the columns", async () => {
    const sql = await across0007(dialect, async (old) => {
      const insert = `INSERT INTO jobs (id, op, surface, state, input, input_digest, result, created_at, finished_at, purged_at)
        VALUES (?, 'sat', 'caller', ?, ?, 'd', ?, 1000, ?, ?)`
      await old.run(insert, ['done', 'succeeded', '{"dimacs":"p cnf 1 1\\n1 0\\n"}', '{"sat":true}', 2000, null])
      await old.run(insert, ['waiting', 'queued', '[1,2]', null, null, null])
      await old.run(insert, ['purged', 'succeeded', null, null, 2000, 3000])
    })
    const repo = createJobRepository(sql)
    expect(await repo.input('done')).toEqual({ dimacs: 'p cnf 1 1\n1 0\n' })
    expect(await repo.result('done')).toEqual({ sat: true })
    expect(await repo.input('waiting')).toEqual([1, 2])
    expect(await repo.result('waiting')).toBeNull()
    expect(await repo.input('purged')).toBeNull()
    expect(await repo.get('done')).toMatchObject({ state: 'succeeded', finishedAt: 2000 })
    await expect(sql.get('SELECT input FROM jobs')).rejects.toThrow(/input/)
    await expect(sql.get('SELECT result FROM jobs')).rejects.toThrow(/result/)
  })
})
