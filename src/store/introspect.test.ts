// Introspection on both backends: tables with exact row counts, server version and size; pragmas only on SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from './index.js'
import { introspect } from './introspect.js'
import { createPostgresPool, createPostgresSql, type PostgresSql } from './postgres-sql.js'
import { migratePostgres } from './postgres-store.js'
import type { Sql } from './sql.js'
import { createTestDatabase, postgresUnavailable, type TestDatabase } from './test-postgres.js'

async function expectCommonFacts(sql: Sql) {
  await sql.run("INSERT INTO pins (digest, content, media_type, label, size, created_at) VALUES ('sha256:x', ?, 'text/plain', NULL, 1, '2026-01-01T00:00:00.000Z')", [Buffer.from('x')])
  const db = introspect(sql)
  expect(introspect(sql)).toBe(db)
  const tables = await db.tables()
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['grants', 'jobs', 'pins', 'schema_migrations']))
  expect(tables.find((t) => t.name === 'pins')?.rows).toBe(1)
  expect(await db.rowCount('pins')).toBe(1)
  expect(await db.rowCount('grants')).toBe(0)
  expect(await db.rowCount('no_such_table')).toBeNull()
  expect(await db.databaseBytes()).toBeGreaterThan(0)
  return { db, tables }
}

describe('introspection over SQLite', () => {
  it('reads tables, counts, version and size, and the pragmas', async () => {
    const store = await openStore({ path: ':memory:' })
    const { db, tables } = await expectCommonFacts(store.sql)
    expect(tables.every((t) => t.bytes === null)).toBe(true)
    expect(await db.pragma('journal_mode')).toBe('memory')
    expect(await db.databaseBytes()).toBe(Number(await db.pragma('page_size')) * Number(await db.pragma('page_count')))
    await expect(db.pragma('journal_mode; DROP TABLE pins')).rejects.toThrow(/not a pragma/)
    store.close()
  })
})

const unavailable = await postgresUnavailable()

describe.skipIf(unavailable !== null)('introspection over PostgreSQL', () => {
  let database: TestDatabase
  let sql: PostgresSql
  beforeAll(async () => {
    database = await createTestDatabase()
    sql = createPostgresSql(createPostgresPool({ connectionString: database.url, max: 2, connectionTimeoutMs: 5000 }))
    await migratePostgres(sql)
  })
  afterAll(async () => {
    await sql?.pool.end()
    await database?.drop()
  })

  it('reads tables with their bytes, counts, version and size; pragmas are refused', async () => {
    const { db, tables } = await expectCommonFacts(sql)
    expect(db.dialect).toBe('postgres')
    expect(tables.find((t) => t.name === 'pins')?.bytes).toBeGreaterThan(0)
    await expect(db.pragma('journal_mode')).rejects.toThrow(/SQLite/)
  })
})
