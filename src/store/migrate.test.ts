import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { openStore } from './index.js'
import { APPLIED_MIGRATIONS, listMigrations, migrationsDirOf, type MigrationRecord } from './migrate.js'
import { createPostgresPool, createPostgresSql, type PostgresSql } from './postgres-sql.js'
import { migratePostgres } from './postgres-store.js'
import { createTestDatabase, postgresUnavailable, type TestDatabase } from './test-postgres.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ncm-migrate-'))
  dirs.push(d)
  return d
}

describe('migration files', () => {
  it('are the same names for both databases', () => {
    const names = (dialect: 'sqlite' | 'postgres') => listMigrations(migrationsDirOf(dialect)).map((m) => m.name)
    expect(names('postgres')).toEqual(names('sqlite'))
  })

  it('of SQLite are byte for byte what existing databases recorded (a changed file would stop them starting)', () => {
    expect(listMigrations(migrationsDirOf('sqlite')).map((m) => [m.name, m.checksum.slice(0, 16)])).toEqual([
      ['0001-core.sql', '842982fce4b5bbba'],
      ['0002-access.sql', '1616fbd0b57dbfd2'],
      ['0003-trading.sql', '3c33b19b57c53fc2'],
      ['0004-listings.sql', 'eb1a099d43ac2c7b'],
      ['0005-jobs.sql', '956cd8f16cba0535'],
      ['0006-run-retention.sql', '03870fa1c8597247'],
      ['0007-job-parts.sql', '61a974fe46850c79'],
      ['0008-pin-parts.sql', 'b1aafc518813352c'],
      ['0009-pin-parts-written-at.sql', 'e896275d5dde02f3'],
      ['0020-job-owners.sql', '7619992f9aca3df5'],
      ['0021-dataset-ids.sql', '72db8d8490341226'],
      ['0022-job-dedupe.sql', 'e28a47ea500662b1'],
      ['0023-job-effects.sql', '9132da1e51914b8f'],
      ['0030-run-results.sql', 'fea449d6982567bb'],
      ['0070-run-owners.sql', 'fafcc2b22015cf6e'],
      ['0071-run-results-whole.sql', '6a15b2d7c5c9f1d2'],
      ['0072-run-ids.sql', 'b6d7d8ef5d5ae0c9'],
    ])
  })
})

describe('migrations on SQLite', () => {
  it('applies every migration of the repo in order and records it', async () => {
    const store = await openStore({ path: ':memory:' })
    const names = listMigrations(migrationsDirOf('sqlite')).map((m) => m.name)
    expect((await store.applied()).map((m) => m.name)).toEqual(names)
    expect(await store.pending()).toEqual([])
    expect(store.sqlite!.pragma('foreign_keys', { simple: true })).toBe(1)
    await store.close()
  })

  it('uses WAL on a file and re-opens without re-applying', async () => {
    const dir = tempDir()
    const path = join(dir, 'db.sqlite')
    const first = await openStore({ path })
    expect(first.sqlite!.pragma('journal_mode', { simple: true })).toBe('wal')
    const applied = await first.applied()
    await first.close()
    const second = await openStore({ path })
    expect(await second.applied()).toEqual(applied)
    await second.close()
  })

  it('rolls back a failing migration whole and records nothing of it', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, '0001-good.sql'), 'CREATE TABLE a (x INTEGER);')
    writeFileSync(join(dir, '0002-bad.sql'), 'CREATE TABLE b (y INTEGER); INSERT INTO nowhere VALUES (1);')
    const path = join(dir, 'db.sqlite')
    await expect(openStore({ path, migrationsDir: dir })).rejects.toThrow(/nowhere/)
    writeFileSync(join(dir, '0002-bad.sql'), 'CREATE TABLE b (y INTEGER);')
    const store = await openStore({ path, migrationsDir: dir })
    expect((await store.applied()).map((m) => m.name)).toEqual(['0001-good.sql', '0002-bad.sql'])
    await store.close()
  })

  it('refuses a migration edited after it was applied, and badly named files', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, '0001-a.sql'), 'CREATE TABLE a (x INTEGER);')
    const path = join(dir, 'db.sqlite')
    await (await openStore({ path, migrationsDir: dir })).close()
    writeFileSync(join(dir, '0001-a.sql'), 'CREATE TABLE a (x INTEGER, y INTEGER);')
    await expect(openStore({ path, migrationsDir: dir })).rejects.toThrow(/changed after it was applied/)
    const other = tempDir()
    writeFileSync(join(other, 'init.sql'), 'SELECT 1;')
    await expect(openStore({ path: ':memory:', migrationsDir: other })).rejects.toThrow(/NNNN-name/)
  })
})

const unavailable = await postgresUnavailable()

describe.skipIf(unavailable !== null)('migrations on PostgreSQL', () => {
  const databases: TestDatabase[] = []
  const sqls: PostgresSql[] = []
  const fresh = async () => {
    const database = await createTestDatabase()
    databases.push(database)
    return database
  }
  const connect = (url: string) => {
    const sql = createPostgresSql(createPostgresPool({ connectionString: url, max: 2, connectionTimeoutMs: 5000 }))
    sqls.push(sql)
    return sql
  }
  afterAll(async () => {
    for (const sql of sqls) await sql.pool.end()
    for (const database of databases) await database.drop()
  })

  it('applies every migration in order, and a second run applies none', async () => {
    const sql = connect((await fresh()).url)
    const names = listMigrations(migrationsDirOf('postgres')).map((m) => m.name)
    expect(await migratePostgres(sql)).toEqual(names)
    expect(await migratePostgres(sql)).toEqual([])
    expect((await sql.all<MigrationRecord>(APPLIED_MIGRATIONS)).map((m) => m.name)).toEqual(names)
    // The translated schema keeps SQLite's checks and hands out ids.
    const { id } = (await sql.get<{ id: number }>(
      `INSERT INTO datasets (symbol, timeframe, source, rows, sha256, seed, created_at) VALUES (?, ?, 'synthetic', 0, ?, 7, ?) RETURNING id`,
      ['BTC', '1h', 'a'.repeat(64), '2026-01-01T00:00:00.000Z']))!
    expect(id).toBe(1)
    await expect(sql.run(`INSERT INTO datasets (symbol, timeframe, source, rows, sha256, created_at) VALUES ('ETH', '1h', 'synthetic', 0, ?, 'x')`, ['b'.repeat(64)]))
      .rejects.toMatchObject({ code: '23514' })
  })

  it('applies each migration once when several replicas start together', async () => {
    const url = (await fresh()).url
    const replicas = Array.from({ length: 4 }, () => connect(url))
    const results = await Promise.all(replicas.map((sql) => migratePostgres(sql)))
    const names = listMigrations(migrationsDirOf('postgres')).map((m) => m.name)
    expect(results.flat().sort()).toEqual(names)
    expect(results.filter((r) => r.length > 0)).toHaveLength(1)
    expect((await replicas[0]!.all<MigrationRecord>(APPLIED_MIGRATIONS)).map((m) => m.name)).toEqual(names)
  })

  it('rolls back a failing migration whole, and refuses one edited after it was applied', async () => {
    const { url } = await fresh()
    const sql = connect(url)
    const dir = tempDir()
    writeFileSync(join(dir, '0001-good.sql'), 'CREATE TABLE a (x bigint);')
    writeFileSync(join(dir, '0002-bad.sql'), 'CREATE TABLE b (y bigint); INSERT INTO nowhere VALUES (1);')
    await expect(migratePostgres(sql, dir)).rejects.toThrow(/nowhere/)
    expect(await sql.get(`SELECT to_regclass('b') AS b`)).toEqual({ b: null })
    writeFileSync(join(dir, '0002-bad.sql'), 'CREATE TABLE b (y bigint);')
    expect(await migratePostgres(sql, dir)).toEqual(['0002-bad.sql'])
    writeFileSync(join(dir, '0001-good.sql'), 'CREATE TABLE a (x bigint, z bigint);')
    await expect(migratePostgres(sql, dir)).rejects.toThrow(/changed after it was applied/)
    // The lock went with the failed run: another migrator is not kept waiting.
    writeFileSync(join(dir, '0001-good.sql'), 'CREATE TABLE a (x bigint);')
    expect(await migratePostgres(connect(url), dir)).toEqual([])
  })
})
