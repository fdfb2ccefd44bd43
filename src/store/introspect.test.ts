// Introspection on both backends: tables with exact row counts, server version and size; pragmas only on SQLite.
import { afterAll, describe, expect, it } from 'vitest'
import { introspect } from './introspect.js'
import type { Sql } from './sql.js'
import { TEST_BACKENDS, testStores } from './test-backends.js'

const stores = testStores()
afterAll(() => stores.cleanup())

async function expectCommonFacts(sql: Sql) {
  await sql.run("INSERT INTO pins (digest, media_type, label, size, created_at) VALUES ('sha256:x', 'text/plain', NULL, 1, '2026-01-01T00:00:00.000Z')")
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
  it('reads tables, counts and size, and the pragmas', async () => {
    const { db, tables } = await expectCommonFacts((await stores.open('sqlite')).sql)
    expect(tables.every((t) => t.bytes === null)).toBe(true)
    expect(await db.pragma('journal_mode')).toBe('memory')
    expect(await db.databaseBytes()).toBe(Number(await db.pragma('page_size')) * Number(await db.pragma('page_count')))
    await expect(db.pragma('journal_mode; DROP TABLE pins')).rejects.toThrow(/not a pragma/)
  })
})

describe.skipIf(!TEST_BACKENDS.includes('postgres'))('introspection over PostgreSQL', () => {
  it('reads tables with their bytes, counts and size; pragmas are refused', async () => {
    const { db, tables } = await expectCommonFacts((await stores.open('postgres')).sql)
    expect(db.dialect).toBe('postgres')
    expect(tables.find((t) => t.name === 'pins')?.bytes).toBeGreaterThan(0)
    await expect(db.pragma('journal_mode')).rejects.toThrow(/SQLite/)
  })
})
